package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

var binaryBefore = []byte{0x89, 'P', 'N', 'G', 0x00, 0xff, 0xfe, 0x00, '\n'}

// rewindScript: prompt 1 writes a file; prompt 2 edits it (Edit, MultiEdit)
// and runs a shell command that modifies, deletes and creates files,
// including a binary one.
func rewindScript() scripted.Script {
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "notes.txt", "content": "v1\n"})),
		scripted.TextStep("wrote notes"),
		scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "notes.txt"})),
		scripted.ToolStep(scripted.CallID("e1", "Edit", map[string]any{"file_path": "notes.txt", "old_string": "v1", "new_string": "v2"})),
		scripted.ToolStep(scripted.CallID("m1", "MultiEdit", map[string]any{"file_path": "notes.txt", "edits": []map[string]any{{"old_string": "v2", "new_string": "v3"}}})),
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": `printf 'changed\n' > keep.txt && rm old.txt && mkdir -p sub && printf 'gen\n' > sub/gen.txt && printf 'x' > img.bin`})),
		scripted.TextStep("all changed"),
	}}
}

func setupRewindWork(t *testing.T, x *e2e) {
	x.WriteFile("keep.txt", "original\n")
	if err := os.Chmod(filepath.Join(x.Work, "keep.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	x.WriteFile("old.txt", "old\n")
	x.WriteFile("img.bin", string(binaryBefore))
	x.WriteFile(".gitignore", "ignored/\n")
	x.WriteFile("ignored/cache.txt", "cache\n")
}

func checkpointsOf(t *testing.T, x *e2e, id string) []checkpoint.Summary {
	t.Helper()
	r := x.Run("sessions", "checkpoints", id, "--json")
	if r.Code != 0 {
		t.Fatalf("sessions checkpoints: %s%s", r.Stdout, r.Stderr)
	}
	var out []checkpoint.Summary
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("checkpoints JSON: %v\n%s", err, r.Stdout)
	}
	return out
}

func fileStates(s checkpoint.Summary) string {
	var parts []string
	for _, f := range s.Files {
		parts = append(parts, f.Path+"="+f.State)
	}
	return strings.Join(parts, " ")
}

// A rewind puts back files changed by Write, Edit, MultiEdit and a shell
// command (modified, deleted, created, binary), refuses to overwrite a file
// changed outside tandem unless forced, and the resumed conversation sends
// the model only the messages from before the rewound prompt.
func TestE2ERewindFilesAndConversation(t *testing.T) {
	t.Parallel()
	x := newE2E(t, rewindScript())
	setupRewindWork(t, x)
	r1 := x.RunStream("prompt one: write notes", "--permission-mode", "trust")
	mustSucceed(t, r1)
	id := r1.Result().SessionID
	r2 := x.RunStream("prompt two: change everything", "--resume", id, "--permission-mode", "trust")
	mustSucceed(t, r2)
	for i, r := range []runResult{r1, r2} {
		pts := eventsOf(r, event.RewindPoint)
		if len(pts) != 1 || pts[0].Checkpoint != i+1 || pts[0].Position == 0 {
			t.Errorf("prompt %d: rewind_point events %+v", i+1, pts)
		}
	}
	if x.ReadFile("notes.txt") != "v3\n" || x.ReadFile("keep.txt") != "changed\n" || fileExists(filepath.Join(x.Work, "old.txt")) {
		t.Fatalf("the turn did not change the files as scripted")
	}

	cps := checkpointsOf(t, x, id)
	if len(cps) != 2 || cps[0].Prompt != "prompt one: write notes" || cps[1].Number != 2 {
		t.Fatalf("checkpoints: %+v", cps)
	}
	if got, want := fileStates(cps[0]), "notes.txt=absent"; got != want {
		t.Errorf("checkpoint 1 files: %s, want %s", got, want)
	}
	if got, want := fileStates(cps[1]), "img.bin=saved keep.txt=saved notes.txt=saved old.txt=saved sub/gen.txt=absent"; got != want {
		t.Errorf("checkpoint 2 files: %s, want %s", got, want)
	}
	text := x.Run("sessions", "checkpoints", id)
	if !strings.Contains(text.Stdout, "prompt two: change everything") || !strings.Contains(text.Stdout, "sub/gen.txt (new)") {
		t.Errorf("checkpoints listing:\n%s", text.Stdout)
	}

	// A change made outside tandem after the checkpoint is not overwritten.
	x.WriteFile("keep.txt", "the user's own edit\n")
	refused := x.Run("sessions", "rewind", id, "--to", "2")
	if refused.Code == 0 || !strings.Contains(refused.Stderr, "keep.txt") || !strings.Contains(refused.Stderr, "--force") {
		t.Fatalf("rewind over an outside change: exit %d\n%s%s", refused.Code, refused.Stdout, refused.Stderr)
	}
	if x.ReadFile("notes.txt") != "v3\n" {
		t.Errorf("a refused rewind changed notes.txt")
	}

	done := x.Run("sessions", "rewind", id, "--to", "2", "--force")
	if done.Code != 0 {
		t.Fatalf("rewind --force: %s%s", done.Stdout, done.Stderr)
	}
	if got := x.ReadFile("notes.txt"); got != "v1\n" {
		t.Errorf("notes.txt = %q, want v1", got)
	}
	if got := x.ReadFile("keep.txt"); got != "original\n" {
		t.Errorf("keep.txt = %q", got)
	}
	if fi, err := os.Stat(filepath.Join(x.Work, "keep.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("keep.txt mode: %v %v", fi.Mode(), err)
	}
	if got := x.ReadFile("old.txt"); got != "old\n" {
		t.Errorf("deleted old.txt not back: %q", got)
	}
	if fileExists(filepath.Join(x.Work, "sub", "gen.txt")) {
		t.Errorf("created sub/gen.txt still there")
	}
	if got := []byte(x.ReadFile("img.bin")); !bytes.Equal(got, binaryBefore) {
		t.Errorf("img.bin = %x, want %x", got, binaryBefore)
	}

	// The next turn continues from before prompt 2.
	before := len(x.srv.MainRequests())
	r3 := x.RunStream("prompt three: instead", "--resume", id, "--permission-mode", "trust")
	mustSucceed(t, r3)
	reqs := x.srv.MainRequests()
	if len(reqs) <= before {
		t.Fatal("no request for prompt three")
	}
	first := string(reqs[before].RawBody)
	if strings.Contains(first, "prompt two") || !strings.Contains(first, "prompt one") || !strings.Contains(first, "prompt three") {
		t.Errorf("the first request after the rewind should hold prompt one and three only:\n%s", first)
	}
	if pts := eventsOf(r3, event.RewindPoint); len(pts) != 1 || pts[0].Checkpoint != 2 {
		t.Errorf("prompt after rewind: rewind_point %+v, want checkpoint 2", pts)
	}

	// Deleting the session deletes its snapshots.
	snapDir := filepath.Join(x.Home, "checkpoints", "sessions", id)
	if _, err := os.Stat(snapDir); err != nil {
		t.Fatalf("no snapshot folder for the session: %v", err)
	}
	del := x.Run("sessions", "delete", id)
	if del.Code != 0 {
		t.Fatalf("delete: %s", del.Stderr)
	}
	if _, err := os.Stat(snapDir); !os.IsNotExist(err) {
		t.Errorf("session snapshot folder still there: %v", err)
	}
}
