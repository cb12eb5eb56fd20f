package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// The embedded default runs its turns on the durable turn queue (SQLite):
// a prompt is queued and run, its permission question is answered once
// through the store (a second answer is 409), and a second prompt sent
// while the first runs is queued behind it and runs after it.
func TestDurableTurnsOnSQLite(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "approved\n"})),
		scripted.TextStep("Wrote it."),
		scripted.TextStep("Second turn."),
	}}
	e := newDurableEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	req := evs[len(evs)-1].Event
	second := e.send(id, "and then")
	if second["queued"] != true {
		t.Errorf("a prompt sent while a turn runs: %v, want queued", second)
	}
	path := "/api/sessions/" + id + "/permissions/" + req.RequestID
	e.mustDo("POST", path, map[string]string{"decision": "allow_once"}, 200, nil)
	code, data := e.do("POST", path, map[string]string{"decision": "deny"})
	if code != 409 || errCode(t, data) != "already_answered" {
		t.Fatalf("second reply: %d %s", code, data)
	}
	evs = until(t, ch, isType(event.Result))
	if r := evs[len(evs)-1].Event; r.IsError || r.Result != "Wrote it." {
		t.Fatalf("first turn: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "out.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("file: %q %v", b, err)
	}
	evs = until(t, ch, isType(event.Result))
	if r := evs[len(evs)-1].Event; r.IsError || r.Result != "Second turn." {
		t.Fatalf("queued turn: %+v", r)
	}
}

// On the embedded default (SQLite turn queue) too, the session shows the
// prompt queued behind the running turn, alone and in the list (the
// queue is the turn queue's, not this process's memory).
func TestDurableStatusOnSQLite(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
		scripted.TextStep("Second turn."),
	}}
	e := newDurableEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	e.send(id, "and then")
	d, l := statusOn(t, e, id)
	for what, s := range map[string]turnStatus{"GET": d, "list": l} {
		if s.Status != "running" || s.RunningPrompt != "write the file" || len(s.Queued) != 1 || s.Queued[0] != "and then" {
			t.Errorf("%s while the turn runs: status %q, prompt %q, queued %q", what, s.Status, s.RunningPrompt, s.Queued)
		}
	}
	e.mustDo("POST", "/api/sessions/"+id+"/permissions/"+evs[len(evs)-1].Event.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	until(t, ch, isType(event.Result))
	until(t, ch, isType(event.Result))
}

// While a replica drains (Shutdown waits for its running turn), /readyz
// says draining (503), so a load balancer sends new traffic elsewhere,
// and /healthz still says the process serves.
func TestReadyzDrains(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	e := newDurableEnv(t, script, func(o *server.Options, c *servertest.Config) {
		c.AskTools = []string{"Write"}
		o.DrainTimeout = time.Minute
	})
	probe := func(path string) (int, string) {
		resp, err := http.Get(e.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Status, Replica string }
		json.NewDecoder(resp.Body).Decode(&body)
		if body.Replica == "" {
			t.Errorf("%s names no replica", path)
		}
		return resp.StatusCode, body.Status
	}
	if code, st := probe("/readyz"); code != 200 || st != "ready" {
		t.Fatalf("/readyz before the drain: %d %s", code, st)
	}
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		done <- e.srv.Shutdown(ctx)
	}()
	waitUntil(t, "/readyz to say draining", func() bool {
		code, st := probe("/readyz")
		return code == 503 && st == "draining"
	})
	if code, st := probe("/healthz"); code != 200 || st != "ok" {
		t.Errorf("/healthz while draining: %d %s", code, st)
	}
	// The running turn finishes during the drain.
	e.mustDo("POST", "/api/sessions/"+id+"/permissions/"+evs[len(evs)-1].Event.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	evs = until(t, ch, isType(event.Result))
	if r := evs[len(evs)-1].Event; r.IsError || r.Result != "Wrote it." {
		t.Fatalf("the turn during the drain: %+v", r)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
