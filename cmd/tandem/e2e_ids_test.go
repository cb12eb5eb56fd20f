package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A session id becomes a folder name under the data folder (checkpoints,
// tool output, the claude-code skill bridge): `--session-id ../../..`
// was stored, and deleting that session removed the data folder's parent,
// database and workspace included. --session-id takes only a UUID, and
// every command refuses an id that is not a single path component.
func TestE2ESessionIDCannotNameAFolder(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello")}})
	x.WriteFile("keep.txt", "mine\n")
	db := filepath.Join(x.Home, "tandem.db")
	const bad = "../../.."

	r := x.Run("-p", "hi", "--session-id", bad, "--output-format", "json")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "UUID") {
		t.Errorf("--session-id %s: exit %d, want a refusal naming a UUID\n%s%s", bad, r.Code, r.Stdout, r.Stderr)
	}
	for _, args := range [][]string{
		{"sessions", "delete", bad},
		{"sessions", "delete", "../x/.."},
		{"sessions", "rewind", bad, "--to", "1", "--force"},
		{"sessions", "checkpoints", bad},
		{"run", "-p", "hi", "--resume", bad},
	} {
		r := x.Run(args...)
		if r.Code == 0 || !strings.Contains(r.Stderr, "not a valid id") {
			t.Errorf("%v: exit %d, want the id refused\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database is gone: %v", err)
	}
	if x.ReadFile("keep.txt") != "mine\n" {
		t.Fatal("the workspace next to the data folder is gone")
	}

	// A UUID is taken, and its session deleted cleanly.
	const id = "123e4567-e89b-12d3-a456-426614174000"
	ok := x.Run("-p", "hi", "--session-id", id, "--output-format", "json")
	if ok.Code != 0 {
		t.Fatalf("--session-id %s: exit %d\n%s%s", id, ok.Code, ok.Stdout, ok.Stderr)
	}
	if del := x.Run("sessions", "delete", id); del.Code != 0 {
		t.Fatalf("delete %s: %s%s", id, del.Stdout, del.Stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database is gone: %v", err)
	}
}
