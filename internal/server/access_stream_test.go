package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// ended waits (10 s at most) for the server to end a stream.
func ended(t *testing.T, ch <-chan sseEvent, what string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s: the open stream was not closed", what)
		}
	}
}

// TestRotatedAndDisabledEndStreams: a token rotated, or a user disabled,
// stops working at once, and the event streams it opened are closed.
func TestRotatedAndDisabledEndStreams(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	edStream, stopEd := tm.streamAs(tm.ed, tm.sid)
	defer stopEd()
	vicStream, stopVic := tm.streamAs(tm.vic, tm.sid)
	defer stopVic()

	code, data := tm.doAs(tm.boss, "POST", "/api/users/ed/token", nil)
	if code != 200 {
		t.Fatalf("rotate: %d %s", code, data)
	}
	ended(t, edStream, "rotated token")
	if code, data := tm.doAs(tm.ed, "GET", "/api/sessions/"+tm.sid, nil); code != 401 {
		t.Errorf("the rotated-out token: %d %s", code, data)
	}
	var rotated struct{ Token string }
	json.Unmarshal(data, &rotated)
	if code, _ := tm.doAs(rotated.Token, "GET", "/api/sessions/"+tm.sid, nil); code != 200 {
		t.Errorf("the new token: %d", code)
	}

	if code, data := tm.doAs(tm.boss, "PATCH", "/api/users/vic", map[string]bool{"disabled": true}); code != 200 {
		t.Fatalf("disable: %d %s", code, data)
	}
	ended(t, vicStream, "disabled user")
	if code, data := tm.doAs(tm.vic, "GET", "/api/me", nil); code != 401 || !strings.Contains(string(data), "disabled") {
		t.Errorf("a disabled user's token: %d %s", code, data)
	}
	// The boss's own stream is untouched by the others' changes.
	bossStream, stopBoss := tm.streamAs(tm.boss, tm.sid)
	defer stopBoss()
	tm.doAs(tm.boss, "POST", "/api/sessions/"+tm.sid+"/messages", map[string]string{"text": "hello"})
	until(t, bossStream, isType(event.Result))
}

// TestAuditEntries: each audited action leaves an entry naming who did it,
// to what and how; only admins read the log.
func TestAuditEntries(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	tm := newTeam(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools, c.Checkpoints = []string{"Write"}, true })
	var created struct{ ID string }
	code, data := tm.doAs(tm.ed, "POST", "/api/sessions", map[string]string{"cwd": tm.ws})
	if code != 201 {
		t.Fatalf("ed creates a session: %d %s", code, data)
	}
	json.Unmarshal(data, &created)
	ch, stop := tm.streamAs(tm.ed, created.ID)
	defer stop()
	if code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+created.ID+"/messages", map[string]string{"text": "write it"}); code != 202 {
		t.Fatalf("prompt: %d %s", code, data)
	}
	evs := until(t, ch, isType(event.PermissionRequest))
	rid := evs[len(evs)-1].Event.RequestID
	// A viewer may not answer; the editor may.
	if code, _ := tm.doAs(tm.vic, "POST", "/api/sessions/"+created.ID+"/permissions/"+rid, map[string]string{"decision": "allow_once"}); code != 403 {
		t.Errorf("a viewer answered: %d", code)
	}
	if code, _ := tm.doAs(tm.eve, "POST", "/api/permissions/"+rid, map[string]string{"decision": "allow_once"}); code != 404 {
		t.Errorf("an outsider answered through the old path: %d", code)
	}
	if code, data := tm.doAs(tm.ed, "POST", "/api/permissions/"+rid, map[string]string{"decision": "allow_once", "scope": "session"}); code != 200 {
		t.Fatalf("answer: %d %s", code, data)
	}
	until(t, ch, isType(event.Result))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, data := tm.doAs(tm.ed, "GET", "/api/sessions/"+created.ID, nil)
		if strings.Contains(string(data), `"status":"idle"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not end")
		}
	}
	if code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+created.ID+"/rewind", map[string]any{"to": 1}); code != 200 {
		t.Fatalf("rewind: %d %s", code, data)
	}

	if code, _ := tm.doAs(tm.ed, "GET", "/api/audit", nil); code != 403 {
		t.Errorf("an editor read the audit log: %d", code)
	}
	var me struct{ User struct{ ID string } }
	_, data = tm.doAs(tm.ed, "GET", "/api/me", nil)
	json.Unmarshal(data, &me)
	var log struct {
		Entries []struct{ Actor, Action, Target, Detail string }
	}
	code, data = tm.doAs(tm.boss, "GET", "/api/audit?user=ed", nil)
	if code != 200 {
		t.Fatalf("audit: %d %s", code, data)
	}
	json.Unmarshal(data, &log)
	want := map[string]string{
		"session.create":    "cwd=" + tm.ws,
		"prompt":            "chars=8",
		"permission.answer": "decision=allow_once scope=session",
		"rewind":            "to=1",
	}
	for _, e := range log.Entries {
		if e.Actor != me.User.ID {
			t.Errorf("entry of another actor in ?user=ed: %+v", e)
		}
		if d, ok := want[e.Action]; ok {
			if e.Target != created.ID || !strings.Contains(e.Detail, d) {
				t.Errorf("%s entry = %+v, want target %s and detail with %q", e.Action, e, created.ID, d)
			}
			delete(want, e.Action)
		}
	}
	if len(want) > 0 {
		t.Errorf("no audit entries for %v in %s", want, data)
	}
	if strings.Contains(string(data), "write it") {
		t.Errorf("the prompt's text reached the audit log: %s", data)
	}
	// The owner is recorded: ed may delete the session ed started, vic may not.
	if code, _ := tm.doAs(tm.vic, "DELETE", "/api/sessions/"+created.ID, nil); code != 403 {
		t.Errorf("a viewer deleted a session: %d", code)
	}
	if code, data := tm.doAs(tm.ed, "DELETE", "/api/sessions/"+created.ID, nil); code/100 != 2 {
		t.Errorf("ed deleting ed's session: %d %s", code, data)
	}
	if code, _ := tm.doAs(tm.ed, "DELETE", "/api/sessions/"+tm.sid, nil); code != 403 {
		t.Errorf("an editor deleted a session of another: %d", code)
	}
}

// TestChangesElsewhereEndStreams: a token rotated or a user disabled
// outside this server (`tandem users` on the same database, another
// replica) ends the streams it authorised too, at the next recheck.
func TestChangesElsewhereEndStreams(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	edStream, stopEd := tm.streamAs(tm.ed, tm.sid)
	defer stopEd()
	vicStream, stopVic := tm.streamAs(tm.vic, tm.sid)
	defer stopVic()
	elsewhere := accounts.New(tm.stack.Manager.Store())
	ctx := context.Background()
	if _, _, err := elsewhere.Rotate(ctx, "cli", "ed"); err != nil {
		t.Fatal(err)
	}
	ended(t, edStream, "a token rotated elsewhere")
	if _, err := elsewhere.SetDisabled(ctx, "cli", "vic", true); err != nil {
		t.Fatal(err)
	}
	ended(t, vicStream, "a user disabled elsewhere")
}
