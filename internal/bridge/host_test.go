package bridge

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
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
	var host *session.LocalHost
	e := newEnv(t, script, func(o *Options) {
		host = session.NewLocalHost(o.Manager)
		o.Host = host
	})
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session ses_") })
	bd, err := e.stack.App.Store.Binding(context.Background(), "fake", "c1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	results := make(chan event.Event, 4)
	other, err := host.Attach(ctx, session.OpenRequest{ID: bd.SessionID}, event.SinkFunc(func(e event.Event) {
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
