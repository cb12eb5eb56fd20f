package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestRealCLIMultiStepEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	calc := h.writeFile("calc.py", "def add(a, b):\n    return a - b\n")
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": calc})),
		scripted.ToolStep(scripted.Call("Edit", map[string]any{"file_path": calc, "old_string": "a - b", "new_string": "a + b"})).WithText("Found it."),
		scripted.ThinkingStep("The test should pass now.", "Fixed add()."),
	}})

	checker := &recordingChecker{}
	rt := New(h.cfg, h.opts)
	res := h.run(context.Background(), rt, h.input("fix add in calc.py"), checker)
	if res.Subtype != event.SubtypeSuccess || res.IsError {
		t.Fatalf("result %+v\nevents: %s", res, types(h.events.All()))
	}
	data, _ := os.ReadFile(calc)
	if !strings.Contains(string(data), "a + b") {
		t.Errorf("calc.py not edited: %q", data)
	}
	seq := TypeSequence(h.events.All())
	want := []event.Type{event.Status, event.ToolUse, event.ToolResult, event.Text, event.ToolUse, event.ToolResult, event.Thinking, event.Text, event.Result, event.Done}
	if !slices.Equal(seq, want) {
		t.Errorf("sequence %v\nwant     %v", seq, want)
	}
	if got := checker.tools(); !slices.Equal(got, []string{"Read", "Edit"}) {
		t.Errorf("checker asked for %v, want Read and Edit (every call goes through tandem)", got)
	}
	if h.rec.Value(MetaSessionID) == "" {
		t.Error("claude session id not recorded")
	}
	msgs := h.rec.Messages()
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
	}
	if strings.Join(roles, " ") != "user assistant user assistant user assistant" {
		t.Errorf("stored roles %v", roles)
	}
	if msgs[0].PlainText() != "fix add in calc.py" {
		t.Errorf("prompt stored as %+v", msgs[0])
	}
	if last := msgs[len(msgs)-1]; last.PlainText() != "Fixed add()." || last.CostUSD == nil || last.Usage == nil {
		t.Errorf("last stored message %+v", last)
	}
	if msgs[3].Content[0].Type != message.Text || msgs[3].ToolUses()[0].Name != "Edit" {
		t.Errorf("merged assistant message %+v", msgs[3])
	}
}

func TestRealCLIDeniedWriteDoesNotHappen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	target := filepath.Join(h.work, "new.txt")
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": target, "content": "x"})),
		scripted.TextStep("ok"),
	}})
	checker := &recordingChecker{denyWrites: true}
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("write new.txt"), checker)
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("denied write happened (stat err %v)", err)
	}
	if res.Subtype != event.SubtypeSuccess {
		t.Errorf("result %+v", res)
	}
	var tr *event.Event
	for _, e := range h.events.All() {
		if e.Type == event.ToolResult {
			tr = &e
		}
	}
	if tr == nil || !tr.IsError || !strings.Contains(tr.Output, "writes are not allowed here") {
		t.Errorf("tool_result %+v", tr)
	}
}

func TestRealCLIAskBlocksUntilAnswered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	target := filepath.Join(h.work, "asked.txt")
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": target, "content": "yes"})),
		scripted.TextStep("written"),
	}})
	asking := make(chan struct{})
	answer := make(chan bool)
	checker := checkerFunc(func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		if r.Tool != "Write" {
			return permission.Decision{Behavior: permission.Allow}, nil
		}
		close(asking)
		select {
		case ok := <-answer:
			if ok {
				return permission.Decision{Behavior: permission.Allow, Rule: "user"}, nil
			}
			return permission.Decision{Behavior: permission.Deny, Message: "user said no"}, nil
		case <-ctx.Done():
			return permission.Decision{}, ctx.Err()
		}
	})
	go func() {
		<-asking
		// While the user thinks, nothing may be written.
		time.Sleep(700 * time.Millisecond)
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Errorf("file written before the user answered")
		}
		answer <- true
	}()
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("write asked.txt"), checker)
	if res.Subtype != event.SubtypeSuccess {
		t.Fatalf("result %+v", res)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "yes" {
		t.Errorf("file after allow: %q, %v", data, err)
	}
}

func TestRealCLIInterrupt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "python3 -c \"import time; time.sleep(300)\"", "description": "wait"})),
		scripted.TextStep("never"),
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checker := checkerFunc(func(context.Context, permission.Request) (permission.Decision, error) {
		time.AfterFunc(500*time.Millisecond, cancel)
		return permission.Decision{Behavior: permission.Allow}, nil
	})
	begin := time.Now()
	res := h.run(ctx, New(h.cfg, h.opts), h.input("wait a bit"), checker)
	if res.Subtype != event.SubtypeInterrupted || !res.IsError {
		t.Errorf("result %+v", res)
	}
	// Far below the command's 300 s (and the 60 s turn timeout), however
	// loaded the machine: the command was stopped, not waited for.
	if d := time.Since(begin); d > 50*time.Second {
		t.Errorf("interrupt took %s", d)
	}
}

func TestRealCLIResumeAcrossTurns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("first answer"), scripted.TextStep("second answer")}})
	rt := New(h.cfg, h.opts)
	r1 := h.run(context.Background(), rt, h.input("one"), permission.AllowAll{})
	id1 := h.rec.Value(MetaSessionID)
	r2 := h.run(context.Background(), rt, h.input("two"), permission.AllowAll{})
	if r1.Result != "first answer" || r2.Result != "second answer" {
		t.Fatalf("results %q, %q", r1.Result, r2.Result)
	}
	if id1 == "" || h.rec.Value(MetaSessionID) != id1 {
		t.Errorf("session ids %q then %q", id1, h.rec.Value(MetaSessionID))
	}
	main := h.srv.MainRequests()
	last := main[len(main)-1]
	if n := len(last.Messages()); n < 3 {
		t.Errorf("second turn sent %d messages; the first turn was not resumed", n)
	}
}

func TestRealCLIMissingSessionStartsFresh(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("fresh")}})
	gone := "00000000-0000-4000-8000-000000000000"
	_ = h.rec.SetMeta(context.Background(), MetaSessionID, gone)
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("hello"), permission.AllowAll{})
	if res.Subtype != event.SubtypeSuccess || res.Result != "fresh" {
		t.Fatalf("result %+v", res)
	}
	var notice string
	for _, e := range h.events.All() {
		if e.Type == event.Status && e.Message != "" {
			notice = e.Message
		}
	}
	if !strings.Contains(notice, gone) || !strings.Contains(notice, "fresh") {
		t.Errorf("status notice %q", notice)
	}
	if id := h.rec.Value(MetaSessionID); id == "" || id == gone {
		t.Errorf("session id after fallback %q", id)
	}
}

func TestRealCLIAuthFailureHint(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{RequireKey: "the-right-key", Steps: []scripted.Step{scripted.TextStep("unreachable")}})
	h.opts.APIKey = "a-wrong-key"
	begin := time.Now()
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("hi"), permission.AllowAll{})
	if res.Subtype != event.SubtypeProviderError || !strings.Contains(res.Error, "ANTHROPIC_API_KEY") || !strings.Contains(res.Error, "claude /login") {
		t.Errorf("result %+v", res)
	}
	if d := time.Since(begin); d > 45*time.Second {
		t.Errorf("auth failure took %s; it must end at the first 401 retry", d)
	}
}

func TestRealCLIFirstByteTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("slow").WithFault(scripted.Fault{FirstByteDelayMS: 300000, Always: true}),
	}})
	h.cfg.FirstByteTimeout = Duration(2 * time.Second)
	begin := time.Now()
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("hi"), permission.AllowAll{})
	if res.Subtype != event.SubtypeError || !strings.Contains(res.Error, "first_byte_timeout") {
		t.Errorf("result %+v", res)
	}
	// Far below the server's 300 s delay, however long the CLI takes to start
	// on a loaded machine: the timeout fired, the answer was not waited for.
	if d := time.Since(begin); d > 60*time.Second {
		t.Errorf("first-byte timeout fired after %s", d)
	}
}

func TestRealCLITurnTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "python3 -c \"import time; time.sleep(300)\"", "description": "wait"})),
		scripted.TextStep("never"),
	}})
	h.cfg.TurnTimeout = Duration(4 * time.Second)
	begin := time.Now()
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("wait"), permission.AllowAll{})
	if res.Subtype != event.SubtypeError || !strings.Contains(res.Error, "turn_timeout") {
		t.Errorf("result %+v", res)
	}
	if d := time.Since(begin); d > 60*time.Second {
		t.Errorf("turn timeout fired after %s", d)
	}
}

func TestRealCLIInterruptWhileAsking(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	target := filepath.Join(h.work, "never.txt")
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": target, "content": "x"})),
		scripted.TextStep("never"),
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checker := checkerFunc(func(cctx context.Context, _ permission.Request) (permission.Decision, error) {
		time.AfterFunc(300*time.Millisecond, cancel) // the user gives up instead of answering
		<-cctx.Done()
		return permission.Decision{}, cctx.Err()
	})
	begin := time.Now()
	res := h.run(ctx, New(h.cfg, h.opts), h.input("write"), checker)
	if res.Subtype != event.SubtypeInterrupted {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Error("write happened although nobody allowed it")
	}
	if d := time.Since(begin); d > 45*time.Second {
		t.Errorf("interrupt while asking took %s", d)
	}
}

func TestRealCLISetModelAndModeMidTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	calc := h.writeFile("a.txt", "hello\n")
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": calc})),
		scripted.TextStep("read it"),
	}})
	rt := New(h.cfg, h.opts)
	var modeErr, modelErr error
	checker := checkerFunc(func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		modeErr = rt.SetPermissionMode(ctx, r.SessionID, "acceptEdits")
		modelErr = rt.SetModel(ctx, r.SessionID, "anthropic/claude-opus-5-5")
		return permission.Decision{Behavior: permission.Allow}, nil
	})
	res := h.run(context.Background(), rt, h.input("read a.txt"), checker)
	if res.Subtype != event.SubtypeSuccess || modeErr != nil || modelErr != nil {
		t.Fatalf("result %+v, set_permission_mode: %v, set_model: %v", res, modeErr, modelErr)
	}
	main := h.srv.MainRequests()
	// The CLI may map an old id onto a newer one of the same family.
	if first, got := main[0].Model(), main[len(main)-1].Model(); first != "claude-sonnet-5-5" || !strings.Contains(got, "opus") {
		t.Errorf("model before set_model %q, after %q", first, got)
	}
	if err := rt.SetModel(context.Background(), "sess-test", "x"); err == nil {
		t.Error("set_model with no running turn: no error")
	}
}

// "/compact" sent as the prompt of a claude-code turn reaches the CLI as
// its own command: the CLI summarises and the turn emits compact_boundary.
func TestRealCLIManualCompactPassesThrough(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("first answer")}, Fallback: &scripted.Step{Text: "CLI-SUMMARY of the conversation"}})
	rt := New(h.cfg, h.opts)
	if r := h.run(context.Background(), rt, h.input("one"), permission.AllowAll{}); r.Result != "first answer" {
		t.Fatalf("first turn: %+v", r)
	}
	r := h.run(context.Background(), rt, h.input("/compact keep the answer"), permission.AllowAll{})
	var boundary *event.Event
	for _, e := range h.events.All() {
		if e.Type == event.CompactBoundary {
			boundary = &e
		}
	}
	if boundary == nil || boundary.Trigger != "manual" || boundary.TokensBefore == 0 {
		t.Fatalf("compact_boundary: %+v (result %+v)", boundary, r)
	}
}
