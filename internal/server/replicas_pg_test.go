package server_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

// pg is the private PostgreSQL the replica tests share (a schema each).
var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// pgTurnsSchema names the schema of DBOS's tables for a test's database
// (its own, beside the test's schema, so tests never take each other's
// turns).
func pgTurnsSchema(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("search_path") + "_dbos"
}

// newReplica is one `tandem serve` replica on the PostgreSQL at dbURL,
// with its own data folder and scripted model server: stored event log,
// heartbeats and durable turns as `tandem serve` wires them. ws is the
// workspace (registered by the first replica, "" for it: it makes one).
func newReplica(t *testing.T, dbURL string, script scripted.Script, ws string, opts ...envOpt) *env {
	t.Helper()
	dir := t.TempDir()
	cfg := servertest.Config{Script: script, Database: dbURL}
	o := server.Options{Token: testToken, DataDir: dir, KeepAlive: time.Hour, DefaultModel: servertest.Model}
	for _, f := range opts {
		f(&o, &cfg)
	}
	e := &env{t: t, dir: dir, cfg: cfg, opts: o, durable: true, pg: dbURL}
	e.start(nil)
	t.Cleanup(e.stop)
	if ws == "" {
		ws = filepath.Join(dir, "project")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if real, err := filepath.EvalSymlinks(ws); err == nil {
			ws = real
		}
		e.mustDo("POST", "/api/workspaces", map[string]string{"path": ws}, 201, nil)
	}
	e.ws = ws
	return e
}

type turnStatus struct {
	Status        string            `json:"status"`
	RunningPrompt string            `json:"running_prompt"`
	Queued        []string          `json:"queued"`
	LastSeq       int64             `json:"last_seq"`
	Messages      []json.RawMessage `json:"messages"`
}

// statusOn is the session as replica e shows it, alone and in the list.
func statusOn(t *testing.T, e *env, id string) (detail, listed turnStatus) {
	t.Helper()
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &detail)
	var list struct {
		Sessions []struct {
			ID string `json:"id"`
			turnStatus
		} `json:"sessions"`
	}
	e.mustDo("GET", "/api/sessions", nil, 200, &list)
	for _, s := range list.Sessions {
		if s.ID == id {
			return detail, s.turnStatus
		}
	}
	t.Fatalf("session %s not in the list", id)
	return
}

// Two replicas on one PostgreSQL: while a turn runs (held by a
// permission question) with a second prompt queued behind it, both
// replicas show the session running, with the running prompt and the
// queued one, alone and in the list, whichever replica runs it; the
// replica that does not run it gives a snapshot (messages, last_seq) from
// which its stream misses and repeats nothing; after both turns, both
// show it idle with every message and the last event's seq.
func TestReplicasShareTurnStatus(t *testing.T) {
	dbURL := pg.Database(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
		scripted.TextStep("Second turn."),
	}}
	ask := func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} }
	a := newReplica(t, dbURL, script, "", ask)
	b := newReplica(t, dbURL, script, a.ws, ask)
	id := a.newSession()
	ch, stop := a.stream(id, "")
	defer stop()
	a.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	req := evs[len(evs)-1].Event
	if second := b.send(id, "and then"); second["queued"] != true {
		t.Errorf("a prompt sent to B while the turn runs: %v, want queued", second)
	}
	var userMsg int64
	for _, ev := range evs {
		if ev.Event.Type == event.Status && ev.Event.Subtype == server.SubtypeUserMessage {
			userMsg = ev.Event.Seq
		}
	}
	for name, r := range map[string]*env{"A": a, "B": b} {
		d, l := statusOn(t, r, id)
		for what, s := range map[string]turnStatus{"GET": d, "list": l} {
			if s.Status != "running" || s.RunningPrompt != "write the file" || !reflect.DeepEqual(s.Queued, []string{"and then"}) {
				t.Errorf("replica %s, %s, while the turn runs: status %q, prompt %q, queued %q", name, what, s.Status, s.RunningPrompt, s.Queued)
			}
		}
		// The snapshot is from before the turn: no message, and the
		// stream from its last_seq starts with (or before) the prompt.
		if len(d.Messages) != 0 || d.LastSeq >= userMsg {
			t.Errorf("replica %s's snapshot while the turn runs: %d messages, last_seq %d (the prompt is event %d)", name, len(d.Messages), d.LastSeq, userMsg)
		}
	}
	path := "/api/sessions/" + id + "/permissions/" + req.RequestID
	b.mustDo("POST", path, map[string]string{"decision": "allow_once"}, 200, nil)
	// The second turn runs on either replica, whose own scripted model
	// may start it with the Write call again: allow whatever is asked.
	var last int64
	for results := 0; results < 2; {
		ev := until(t, ch, func(e event.Event) bool { return e.Type == event.Result || e.Type == event.PermissionRequest })
		e := ev[len(ev)-1].Event
		if e.Type == event.PermissionRequest {
			a.mustDo("POST", "/api/sessions/"+id+"/permissions/"+e.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
			continue
		}
		results++
		last = e.Seq
	}
	waitUntil(t, "both replicas to show the session idle", func() bool {
		for _, r := range []*env{a, b} {
			d, l := statusOn(t, r, id)
			if d.Status != "idle" || l.Status != "idle" || len(d.Queued) != 0 {
				return false
			}
		}
		return true
	})
	for name, r := range map[string]*env{"A": a, "B": b} {
		d, _ := statusOn(t, r, id)
		if len(d.Messages) < 4 || d.LastSeq < last {
			t.Errorf("replica %s after both turns: %d messages, last_seq %d (the last result is event %d)", name, len(d.Messages), d.LastSeq, last)
		}
	}
}

// waitUntil polls cond (every 50 ms, 30 s at most).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Two replicas on one PostgreSQL, serve.user_max_concurrent_turns 1: a
// user whose turn runs (admitted on A, run by either) is refused a second
// one on both replicas; once it ended, B admits the next.
func TestReplicasShareUserTurnLimit(t *testing.T) {
	dbURL := pg.Database(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	opt := func(o *server.Options, c *servertest.Config) {
		c.AskTools = []string{"Write"}
		o.Limits = server.Limits{MaxTurns: 1}
	}
	a := newReplica(t, dbURL, script, "", opt)
	b := newReplica(t, dbURL, script, a.ws, opt)
	code, data := a.do("POST", "/api/users", map[string]any{"name": "ann", "admin": true})
	if code != 201 {
		t.Fatalf("add a user: %d %s", code, data)
	}
	var ann struct{ Token string }
	json.Unmarshal(data, &ann)
	var s1, s2 struct{ ID string }
	for _, s := range []*struct{ ID string }{&s1, &s2} {
		code, data := a.doAs(ann.Token, "POST", "/api/sessions", map[string]string{"cwd": a.ws})
		if code != 201 {
			t.Fatalf("create: %d %s", code, data)
		}
		json.Unmarshal(data, s)
	}
	ch, stop := a.streamWith(ann.Token, s1.ID, "")
	defer stop()
	if code, data := a.doAs(ann.Token, "POST", "/api/sessions/"+s1.ID+"/messages", map[string]string{"text": "one"}); code != 202 {
		t.Fatalf("first prompt on A: %d %s", code, data)
	}
	evs := until(t, ch, isType(event.PermissionRequest))
	// Refused by both replicas: the one running the turn and the other.
	for name, r := range map[string]*env{"A": a, "B": b} {
		code, data = r.doAs(ann.Token, "POST", "/api/sessions/"+s2.ID+"/messages", map[string]string{"text": "two"})
		if code != 429 || !strings.Contains(string(data), "user_turn_limit") {
			t.Fatalf("a second turn on %s while the first runs: %d %s, want 429 user_turn_limit", name, code, data)
		}
	}
	if code, data := b.doAs(ann.Token, "POST", "/api/sessions/"+s1.ID+"/permissions/"+evs[len(evs)-1].Event.RequestID,
		map[string]string{"decision": "allow_once"}); code != 200 {
		t.Fatalf("answer: %d %s", code, data)
	}
	until(t, ch, isType(event.Result))
	waitUntil(t, "B to admit the next turn", func() bool {
		code, data := b.doAs(ann.Token, "POST", "/api/sessions/"+s2.ID+"/messages", map[string]string{"text": "two"})
		if code == 202 {
			return true
		}
		if code != 429 {
			t.Fatalf("the next turn on B: %d %s", code, data)
		}
		return false
	})
}
