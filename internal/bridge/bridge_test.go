package bridge

import (
	"context"
	"fmt"
	"github.com/tandem-agent/tandem/internal/testfiles"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// env is a bridge over the real application with a scripted model and
// the fake platform.
type env struct {
	t     *testing.T
	fake  *fakePlatform
	stack *servertest.Stack
	ws    string
	logs  *testfiles.SyncBuffer
	stop  func()
	n     int
}

func newEnv(t *testing.T, script scripted.Script, tune func(*Options)) *env {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	stack, err := servertest.New(filepath.Join(dir, "data"), servertest.Config{Script: script, AskTools: []string{"Write"}, Checkpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, fake: newFake(), stack: stack, ws: ws, logs: &testfiles.SyncBuffer{}}
	opts := Options{Manager: stack.Manager, Records: stack.App.Store, Allow: []string{"alice"}, Folders: []string{ws},
		FlagRules: stack.FlagRules, Log: log.New(e.logs, "", 0)}
	if tune != nil {
		tune(&opts)
	}
	b, err := New(e.fake, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	var once sync.Once
	e.stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(func() { e.stop(); stack.Close() })
	return e
}

// idle waits until the chat's turn (and its queue) ended.
func (e *env) idle() {
	e.t.Helper()
	f := e.fake
	for range 400 {
		e.send("alice", "/status")
		f.waitFor(e.t, "the status", func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return strings.HasPrefix(f.msgs[f.order[len(f.order)-1]], "Session ")
		})
		if strings.Contains(f.transcript(), "(idle)") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatal("the turn did not end")
}

// messages are the messages stored in the chat's session.
func (e *env) messages() []message.Message {
	e.t.Helper()
	ctx := context.Background()
	bd, err := e.stack.App.Store.Binding(ctx, "fake", "c1")
	if err != nil {
		e.t.Fatal(err)
	}
	msgs, err := e.stack.Manager.Messages(ctx, bd.SessionID)
	if err != nil {
		e.t.Fatal(err)
	}
	return msgs
}

// prompts are the user prompts stored in the chat's session.
func (e *env) prompts() []string {
	e.t.Helper()
	var out []string
	for _, m := range e.messages() {
		for _, b := range m.Content {
			if m.Role == message.User && b.Type == message.Text {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// newSession binds chat c1 to a new session in proj and returns its id.
func (e *env) newSession() string {
	e.t.Helper()
	e.send("alice", "/new proj")
	e.fake.waitFor(e.t, "the new session", func() bool { return e.fake.has("New session ses_") })
	bd, err := e.stack.App.Store.Binding(context.Background(), "fake", "c1")
	if err != nil {
		e.t.Fatal(err)
	}
	return bd.SessionID
}

// send feeds a message from user in chat c1 with the next update id.
func (e *env) send(user, text string) string { return e.sendIn("c1", user, text) }

// sendIn feeds a message from user in the chat with the next update id.
func (e *env) sendIn(chat, user, text string) string {
	e.n++
	id := fmt.Sprint("u", e.n)
	e.fake.updates <- Update{ID: id, Chat: Chat{ID: chat}, User: user, UserName: user, Text: text}
	return id
}

func TestPromptEditsAFileAfterAButtonApprovesIt(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]string{"file_path": "out.txt"})),
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "approved\n"})),
		scripted.TextStep("Wrote out.txt."),
	}}
	e := newEnv(t, script, nil)
	f := e.fake
	if err := os.WriteFile(filepath.Join(e.ws, "proj", "out.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session ses_") })

	// Someone not on the allow-list is ignored, and logged.
	e.send("mallory", "delete everything")
	e.send("alice", "write the file")
	f.waitFor(t, "the question", func() bool { _, bs := f.buttonsOf("Permission needed"); return len(bs) > 0 })
	if !strings.Contains(e.logs.String(), "ignored an update from user mallory") {
		t.Errorf("the ignored user is not logged: %s", e.logs.String())
	}
	msgID, bs := f.buttonsOf("Permission needed")
	if len(bs) != 2 || bs[0].Label != "Allow once" || bs[1].Label != "Deny" {
		t.Fatalf("buttons = %+v", bs)
	}
	if !strings.Contains(f.transcript(), "out.txt") {
		t.Errorf("the question does not name the file:\n%s", f.transcript())
	}
	// mallory's press is ignored; alice's answers.
	f.updates <- Update{ID: "p0", Chat: Chat{ID: "c1"}, User: "mallory", Press: &Press{ID: "q0", Data: bs[0].Data, MessageID: msgID}}
	f.updates <- Update{ID: "p1", Chat: Chat{ID: "c1"}, User: "alice", UserName: "alice", Press: &Press{ID: "q1", Data: bs[0].Data, MessageID: msgID}}
	f.waitFor(t, "the answer", func() bool { return f.has("Wrote out.txt.") })
	if b, err := os.ReadFile(filepath.Join(e.ws, "proj", "out.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("out.txt = %q, %v; transcript:\n%s", b, err, f.transcript())
	}
	f.waitFor(t, "the question marked answered", func() bool { return f.has("Allowed once by fake:alice") })
	// A second press of a stale button is told so.
	f.updates <- Update{ID: "p2", Chat: Chat{ID: "c1"}, User: "alice", Press: &Press{ID: "q2", Data: bs[1].Data, MessageID: msgID}}
	f.waitFor(t, "the stale notice", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.notices) == 2 && f.notices[1] == "Already answered."
	})
	if !f.has("🔧 Write out.txt") {
		t.Errorf("no line for the tool call:\n%s", f.transcript())
	}
	if d := f.files["out.txt.diff"]; !strings.Contains(d, "-before") || !strings.Contains(d, "+approved") {
		t.Errorf("the diff was not attached: %v", f.files)
	}
	e.idle()
	if p := e.prompts(); len(p) != 1 || p[0] != "write the file" {
		t.Errorf("prompts run: %q, want only alice's", p)
	}
}

func TestUpdateDeliveredAgainAfterReconnectRunsOnce(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("once"), scripted.TextStep("twice")}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	f.updates <- Update{ID: "42", Chat: Chat{ID: "c1"}, User: "alice", Text: "hello"}
	f.waitFor(t, "the answer", func() bool { return f.has("once") })
	f.updates <- Update{ID: "disconnect"}
	// The platform delivers the unconfirmed update again.
	f.updates <- Update{ID: "42", Chat: Chat{ID: "c1"}, User: "alice", Text: "hello"}
	e.send("alice", "/status")
	f.waitFor(t, "the status", func() bool { return f.has("Session ses_") })
	e.idle()
	if p := e.prompts(); len(p) != 1 {
		t.Errorf("prompts run: %q, want one: the update ran twice", p)
	}
	if !strings.Contains(e.logs.String(), "update 42 was processed before") {
		t.Errorf("logs: %s", e.logs.String())
	}
}

func TestBindingSurvivesARestart(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("first"), scripted.TextStep("second")}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	e.send("alice", "/mode acceptEdits")
	f.waitFor(t, "the mode", func() bool { return f.has("Mode: acceptEdits") })
	e.send("alice", "one")
	f.waitFor(t, "the answer", func() bool { return f.has("first") })
	e.idle()
	e.stop()

	// A new bridge over the same store: the chat is still bound.
	f2 := newFake()
	b, err := New(f2, Options{Manager: e.stack.Manager, Records: e.stack.App.Store, Allow: []string{"alice"}, Folders: []string{e.ws}, Log: log.New(e.logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	f2.updates <- Update{ID: "x1", Chat: Chat{ID: "c1"}, User: "alice", Text: "two"}
	f2.waitFor(t, "the second answer", func() bool { return f2.has("second") })
	f2.updates <- Update{ID: "x2", Chat: Chat{ID: "c1"}, User: "alice", Text: "/status"}
	f2.waitFor(t, "the status", func() bool { return f2.has("mode acceptEdits") })
}

func TestNewRefusesFoldersOutsideTheBridgesOwn(t *testing.T) {
	e := newEnv(t, scripted.Script{}, nil)
	f := e.fake
	// A link inside the folder that leads out of it is out too.
	if err := os.Symlink(t.TempDir(), filepath.Join(e.ws, "escape")); err != nil {
		t.Fatal(err)
	}
	e.send("alice", "/new /")
	e.send("alice", "/new ../..")
	e.send("alice", "/new escape")
	e.send("alice", "hello")
	f.waitFor(t, "the refusals", func() bool {
		return strings.Count(f.transcript(), "not among the folders") == 3 && f.has("no session yet")
	})
}

func TestFailingTurnReportsItsErrorAndSecretsAreRedacted(t *testing.T) {
	const secret = "sk-bridge-test-0123456789abcdef"
	script := scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("the key is " + secret),
		scripted.TextStep("").WithFault(scripted.Fault{Status: 400, Always: true}),
	}}
	e := newEnv(t, script, func(o *Options) {
		o.Redact = secrets.New([]string{"BRIDGE_TEST_KEY"}, nil).Redactor([]string{"BRIDGE_TEST_KEY=" + secret})
	})
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	e.send("alice", "tell me the key")
	f.waitFor(t, "the answer", func() bool { return f.has("the key is") })
	e.idle()
	e.send("alice", "again")
	f.waitFor(t, "the error", func() bool { return f.has("⚠ The turn failed") })
	// Nothing sent, not even an edit while the text streamed, holds the
	// secret or its start.
	for _, l := range f.snapshotLog() {
		if strings.Contains(l, secret[:8]) {
			t.Errorf("the secret reached the chat: %s", l)
		}
	}
}

// /stop while a question waits: the turn ends, the question loses its
// buttons, and a late press is told it was already answered.
func TestStopWhileAQuestionWaits(t *testing.T) {
	e := questionWaiting(t)
	f := e.fake
	msgID, bs := f.buttonsOf("Permission needed")
	e.send("alice", "/stop")
	f.waitFor(t, "the stop", func() bool { return f.has("Stopped.") && f.has("no longer asked") })
	if _, still := f.buttonsOf("Permission needed"); still != nil {
		t.Error("the question kept its buttons")
	}
	f.updates <- Update{ID: "late", Chat: Chat{ID: "c1"}, User: "alice", Press: &Press{ID: "q", Data: bs[0].Data, MessageID: msgID}}
	f.waitFor(t, "the stale notice", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.notices) == 1 && f.notices[0] == "Already answered."
	})
	if _, err := os.Stat(filepath.Join(e.ws, "proj", "new.txt")); err == nil {
		t.Error("the stopped turn wrote the file")
	}
}

// The bridge shutting down while a turn waits on a question stops the
// turn and says so in the chat: the chat keeps following the session
// until its turn ended, so shutdown does not wait out its bound for a
// done that never comes.
func TestShutdownDuringATurnSaysItStopped(t *testing.T) {
	e := questionWaiting(t)
	f := e.fake
	e.stop()
	if !f.has("⏹ Stopped.") || !f.has("(no longer asked: the turn ended)") {
		t.Errorf("the chat was not told the turn stopped:\n%s", f.transcript())
	}
	if strings.Contains(e.logs.String(), "turns still running") {
		t.Errorf("shutdown waited for a turn it had stopped: %s", e.logs.String())
	}
}

// questionWaiting is a bridge whose chat's turn waits on the question to
// write new.txt (never written: the tests stop the turn).
func questionWaiting(t *testing.T) *env {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "new.txt", "content": "x\n"})),
		scripted.TextStep("not reached"),
	}}
	e := newEnv(t, script, nil)
	e.newSession()
	e.send("alice", "write it")
	e.fake.waitFor(t, "the question", func() bool { _, bs := e.fake.buttonsOf("Permission needed"); return len(bs) > 0 })
	return e
}
