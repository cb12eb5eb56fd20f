package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

// pgServer is the private PostgreSQL the e2e tests that need one share
// (started on first use; stopped by TestMain).
var pgServer = pgtest.New()

// openPG opens the store at url the way tandem does, for checking what a
// tandem process stored.
func openPG(t *testing.T, url string) store.Store {
	t.Helper()
	st, err := storeopen.Open(context.Background(), url, storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// noSQLiteFile fails when tandem created its SQLite file under home: on
// PostgreSQL nothing of the session belongs there.
func noSQLiteFile(t *testing.T, home string) {
	t.Helper()
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "tandem.db") {
			t.Errorf("a SQLite file was created: %s", p)
		}
		return nil
	})
}

// `tandem run` with TANDEM_DATABASE_URL stores the session in PostgreSQL
// (messages, the last event seq), resumes it from there, and `sessions`
// and `doctor` read the same database.
func TestE2EPostgresRun(t *testing.T) {
	t.Parallel()
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "notes.txt"})),
		scripted.TextStep("first answer"),
		scripted.TextStep("second answer"),
	}})
	x.WriteFile("notes.txt", "hello\n")
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)

	r := x.RunStream("read the notes")
	mustSucceed(t, r)
	id := r.Result().SessionID
	st := openPG(t, dbURL)
	ctx := context.Background()
	msgs, err := st.Messages(ctx, id)
	if err != nil {
		t.Fatalf("session %s in PostgreSQL: %v", id, err)
	}
	if len(msgs) != 4 || msgs[3].PlainText() != "first answer" {
		t.Fatalf("stored %d messages: %+v", len(msgs), msgs)
	}
	sess, _ := st.GetSession(ctx, id)
	if sess.LastSeq == 0 || sess.Title != "read the notes" {
		t.Fatalf("session row: %+v", sess)
	}

	r = x.RunStream("again", "--continue")
	mustSucceed(t, r)
	if r.Result().SessionID != id {
		t.Fatalf("--continue ran session %s, want %s", r.Result().SessionID, id)
	}
	if msgs, _ := st.Messages(ctx, id); len(msgs) != 6 {
		t.Fatalf("after --continue: %d messages, want 6", len(msgs))
	}
	if got, _ := st.GetSession(ctx, id); got.LastSeq <= sess.LastSeq {
		t.Errorf("last seq did not move on: %d then %d", sess.LastSeq, got.LastSeq)
	}

	list := x.Run("sessions", "list", "--all", "--json")
	mustSucceed(t, list)
	if !strings.Contains(list.Stdout, id) {
		t.Errorf("sessions list lacks %s:\n%s", id, list.Stdout)
	}

	doc := x.Run("doctor", "--offline", "--json")
	var rep struct {
		Database, DatabaseBackend, DatabaseSchema, DatabaseServer, DatabaseCheck string
	}
	if err := json.Unmarshal([]byte(doc.Stdout), &struct {
		Database        *string `json:"database"`
		DatabaseBackend *string `json:"database_backend"`
		DatabaseSchema  *string `json:"database_schema"`
		DatabaseServer  *string `json:"database_server"`
		DatabaseCheck   *string `json:"database_check"`
	}{&rep.Database, &rep.DatabaseBackend, &rep.DatabaseSchema, &rep.DatabaseServer, &rep.DatabaseCheck}); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, doc.Stdout, doc.Stderr)
	}
	if rep.DatabaseBackend != "postgres" || rep.DatabaseCheck != "ok" || !strings.HasPrefix(rep.DatabaseServer, "PostgreSQL ") ||
		rep.DatabaseSchema == "" || strings.HasPrefix(rep.DatabaseSchema, "0/") {
		t.Errorf("doctor: %+v", rep)
	}
	if strings.Contains(doc.Stdout, pgtest.AppPassword) {
		t.Errorf("doctor shows the database password:\n%s", doc.Stdout)
	}
	noSQLiteFile(t, x.Home)
}

// `tandem serve` with TANDEM_DATABASE_URL runs turns whose messages land in
// PostgreSQL.
func TestE2EPostgresServe(t *testing.T) {
	t.Parallel()
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello from serve")}})
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)
	srv := startServe(t, x, "--permission-mode", "trust")
	sess := srv.call("POST", "/api/sessions", map[string]string{"cwd": x.Work})
	id := fmt.Sprint(sess["id"])
	srv.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "hi"})
	waitFor(t, "the turn to finish", 20*time.Second, func() bool {
		got := srv.call("GET", "/api/sessions/"+id, nil)
		return got["status"] == "idle" && fmt.Sprint(got["message_count"]) == "2"
	})
	msgs, err := openPG(t, dbURL).Messages(context.Background(), id)
	if err != nil || len(msgs) != 2 || msgs[1].PlainText() != "hello from serve" {
		t.Fatalf("PostgreSQL holds %+v (%v)", msgs, err)
	}
	noSQLiteFile(t, x.Home)
}

// A database URL with a wrong password: every command fails naming the
// fix, doctor explains where the URL comes from, and the password is
// never printed.
func TestE2EPostgresWrongPassword(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse(pgServer.Database(t))
	u.User = url.UserPassword(pgtest.AppUser, "wrong-secret-123")
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}})
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+u.String())
	r := x.RunStream("hi")
	if r.Code == 0 || !strings.Contains(r.Stderr+r.Stdout, "check the user and password") {
		t.Fatalf("run with a wrong password: code %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	doc := x.Run("doctor", "--offline")
	if doc.Code == 0 || !strings.Contains(doc.Stdout, "The database is PostgreSQL") || strings.Contains(doc.Stdout, "sqlite3") {
		t.Fatalf("doctor with a wrong password: code %d\n%s", doc.Code, doc.Stdout)
	}
	for _, out := range []string{r.Stdout, r.Stderr, doc.Stdout, doc.Stderr} {
		if strings.Contains(out, "wrong-secret-123") {
			t.Fatalf("the password was printed:\n%s", out)
		}
	}
}

// `tandem sessions migrate --to URL` copies what the SQLite file holds
// into PostgreSQL; run again it copies nothing twice.
func TestE2ESessionsMigrate(t *testing.T) {
	t.Parallel()
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("stored in sqlite")}})
	r := x.RunStream("remember this")
	mustSucceed(t, r)
	id := r.Result().SessionID
	add := x.Run("users", "add", "ann", "--admin")
	mustSucceed(t, add)

	m := x.Run("sessions", "migrate", "--to", dbURL)
	mustSucceed(t, m)
	if !strings.Contains(m.Stdout, "copied 1 new session(s), 0 again (2 messages") ||
		!strings.Contains(m.Stdout, "accounts: 1 user(s)") {
		t.Fatalf("first migrate:\n%s", m.Stdout)
	}
	m = x.Run("sessions", "migrate", "--to", dbURL)
	mustSucceed(t, m)
	if !strings.Contains(m.Stdout, "copied 0 new session(s), 1 again (2 messages") {
		t.Fatalf("second migrate:\n%s", m.Stdout)
	}
	msgs, err := openPG(t, dbURL).Messages(context.Background(), id)
	if err != nil || len(msgs) != 2 || msgs[1].PlainText() != "stored in sqlite" {
		t.Fatalf("PostgreSQL holds %+v (%v)", msgs, err)
	}
	// tandem on PostgreSQL shows it.
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)
	show := x.Run("sessions", "show", id)
	mustSucceed(t, show)
	if !strings.Contains(show.Stdout, "stored in sqlite") {
		t.Errorf("sessions show on PostgreSQL:\n%s", show.Stdout)
	}
	// The team's users came along.
	users := x.Run("users", "list")
	mustSucceed(t, users)
	if !strings.Contains(users.Stdout, "ann") {
		t.Errorf("users list on PostgreSQL:\n%s", users.Stdout)
	}
	bad := x.Run("sessions", "migrate", "--to", filepath.Join(x.Home, "other.db"))
	if bad.Code == 0 || !strings.Contains(bad.Stderr, "give a PostgreSQL URL") {
		t.Errorf("migrate to a file: %d\n%s", bad.Code, bad.Stderr)
	}
}
