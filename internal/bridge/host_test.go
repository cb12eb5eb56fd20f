package bridge

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/session"
)

// A turn another front end starts on the chat's session (here a second
// attachment to the bridge's host, as the web UI is inside `tandem
// serve`) shows in the chat with its prompt, its question arrives as
// buttons, and the chat's /stop interrupts it.
func TestAnotherFrontEndsTurnShowsInTheChat(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "other.txt", "content": "x\n"})),
		scripted.TextStep("not stopped"),
	}}
	e, host := newHostEnv(t, script)
	f := e.fake
	id := e.newSession()
	ctx := context.Background()
	results := make(chan event.Event, 4)
	other, err := host.Attach(ctx, session.OpenRequest{ID: id}, event.SinkFunc(func(e event.Event) {
		if e.Type == event.Result {
			results <- e
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Detach("other")
	if queued, err := other.Prompt(ctx, "write other.txt", session.TurnOptions{Origin: "tui:1"}); err != nil || queued {
		t.Fatalf("prompt from the other front end: queued %v, %v", queued, err)
	}
	f.waitFor(t, "its prompt in the chat", func() bool { return f.has("💬 Prompt from tui:1:\nwrite other.txt") })
	f.waitFor(t, "its question in the chat", func() bool { _, bs := f.buttonsOf("other.txt"); return len(bs) > 0 })
	if !other.Busy() {
		t.Error("the other front end's turn is not running")
	}
	e.send("alice", "/stop")
	if res := <-results; res.Subtype != event.SubtypeInterrupted {
		t.Errorf("the other front end's turn ended %q, want interrupted by the chat's /stop", res.Subtype)
	}
	f.waitFor(t, "the chat told it stopped", func() bool { return f.has("⏹ Stopped.") })
	f.waitFor(t, "the question withdrawn", func() bool { return f.has("(no longer asked: the turn ended)") })
	if strings.Contains(f.transcript(), "not stopped") {
		t.Errorf("the turn went on after /stop:\n%s", f.transcript())
	}
}

// Two chats that follow one session each show its question with buttons
// of their own; an answer pressed in one chat marks the question answered
// in both (each chat's message is edited, not only the last one shown).
func TestTwoChatsOnOneSessionBothShowTheAnswer(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "both.txt", "content": "x\n"})),
		scripted.TextStep("Wrote both.txt."),
	}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.sendIn("c2", "alice", "/resume "+e.newSession())
	f.waitFor(t, "the second chat resumed", func() bool { return len(f.textsIn("c2", "Resumed")) == 1 })

	e.sendIn("c1", "alice", "write both.txt")
	var msgID string
	var bs []Button
	f.waitFor(t, "the question in both chats", func() bool {
		_, in1 := f.buttonsIn("c1", "Permission needed")
		msgID, bs = f.buttonsIn("c2", "Permission needed")
		return len(in1) > 0 && len(bs) > 0
	})
	f.updates <- Update{ID: "p1", Chat: Chat{ID: "c2"}, User: "alice", UserName: "alice", Press: &Press{ID: "q1", Data: bs[0].Data, MessageID: msgID}}
	for _, chat := range []string{"c1", "c2"} {
		f.waitFor(t, "the answer in "+chat, func() bool {
			q := f.textsIn(chat, "Permission needed")
			return len(q) == 1 && strings.Contains(q[0], "✅ Allowed once by fake:alice")
		})
		if _, left := f.buttonsIn(chat, "Permission needed"); left != nil {
			t.Errorf("the answered question in %s still has buttons: %+v", chat, left)
		}
	}
	f.waitFor(t, "the turn's answer", func() bool { return len(f.textsIn("c1", "Wrote both.txt.")) > 0 })
}

// A bridge that shuts down while another front end's turn runs on the
// chat's session leaves the turn running (the other front end holds the
// session) and tells the chat it stopped following it.
func TestShutdownLeavesAnotherFrontEndsTurnRunning(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "other.txt", "content": "x\n"})),
		scripted.TextStep("went on"),
	}}
	e, host := newHostEnv(t, script)
	f := e.fake
	id := e.newSession()
	ctx := context.Background()
	events := make(chan event.Event, 64)
	other, err := host.Attach(ctx, session.OpenRequest{ID: id}, event.SinkFunc(func(e event.Event) { events <- e }))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Detach("other")
	if _, err := other.Prompt(ctx, "write other.txt", session.TurnOptions{Origin: "tui:1"}); err != nil {
		t.Fatal(err)
	}
	var ask event.Event
	for ask.Type != event.PermissionRequest {
		ask = <-events
	}
	f.waitFor(t, "its question in the chat", func() bool { _, bs := f.buttonsOf("other.txt"); return len(bs) > 0 })
	e.stop()
	if !f.has("⏸ This chat no longer follows this turn") {
		t.Errorf("the chat was not told the bridge stopped following the turn:\n%s", f.transcript())
	}
	if strings.Contains(e.logs.String(), "turns still running") {
		t.Errorf("shutdown waited for a turn it no longer follows: %s", e.logs.String())
	}
	if err := other.Reply(ctx, ask.RequestID, permission.Answer{Decision: permission.AllowOnce}); err != nil {
		t.Fatalf("the turn did not go on after the bridge stopped: %v", err)
	}
	for e := range events {
		if e.Type == event.Result {
			if e.IsError || e.Result != "went on" {
				t.Errorf("the other front end's turn ended %+v, want it to go on", e)
			}
			break
		}
	}
}

// newHostEnv is newEnv with the bridge on a LocalHost the test can attach
// to as another front end.
func newHostEnv(t *testing.T, script scripted.Script) (*env, *session.LocalHost) {
	var host *session.LocalHost
	e := newEnv(t, script, func(o *Options) {
		host = session.NewLocalHost(o.Manager)
		o.Host = host
	})
	return e, host
}
