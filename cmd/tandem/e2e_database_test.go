package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// TANDEM_DATABASE_URL chooses the store for every command: a turn is
// stored in that file (none in the data folder), `sessions` lists it from
// there and `doctor` names the file and the backend.
func TestE2EDatabaseURLChoosesTheStore(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("Stored elsewhere.")}})
	db := filepath.Join(t.TempDir(), "team", "sessions.db")
	x.Env = append(x.Env, "TANDEM_DATABASE_URL=sqlite:"+db)
	r := x.Run("run", "-p", "hello", "--output-format", "json")
	mustSucceed(t, r)
	id := r.Result().SessionID
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("no database at %s: %v", db, err)
	}
	if _, err := os.Stat(filepath.Join(x.Home, "tandem.db")); err == nil {
		t.Errorf("the default database was made too")
	}
	if l := x.Run("sessions", "list"); l.Code != 0 || !strings.Contains(l.Stdout, id) {
		t.Errorf("sessions list: exit %d\n%s%s", l.Code, l.Stdout, l.Stderr)
	}
	d := x.Run("doctor", "--offline")
	if !strings.Contains(d.Stdout, "database:      "+db) || !strings.Contains(d.Stdout, "store:         sqlite, schema ") {
		t.Errorf("doctor:\n%s%s", d.Stdout, d.Stderr)
	}

	// A postgres URL that cannot be opened (no backend in this build, or
	// no server there) fails the command, its password unshown.
	x.Env = append(x.Env, "TANDEM_DATABASE_URL=postgres://tandem:hunter2@127.0.0.1:1/tandem?connect_timeout=5")
	s := x.Run("sessions", "list")
	if s.Code == 0 || s.Stderr == "" || strings.Contains(s.Stderr+s.Stdout, "hunter2") {
		t.Errorf("postgres URL without the backend: exit %d\n%s%s", s.Code, s.Stdout, s.Stderr)
	}
}

// A project file may not choose the database: the error names the file,
// the setting and the fix.
func TestE2EProjectCannotSetDatabase(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}})
	x.WriteFile(".tandem/config.json", `{"database": "postgres://collector.example/db"}`)
	r := x.Run("run", "-p", "hello")
	if r.Code == 0 || !strings.Contains(r.Stderr, `"database"`) || !strings.Contains(r.Stderr, "user config") {
		t.Errorf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
