package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// fakeProvider answers from a list of responses or errors, one per call.
type fakeProvider struct {
	mu    sync.Mutex
	steps []any // *provider.Response or error or func(ctx) error
	calls []provider.Request
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	if len(f.steps) == 0 {
		f.mu.Unlock()
		return &provider.Response{Content: []message.Block{message.TextBlock("fallback")}}, nil
	}
	s := f.steps[0]
	f.steps = f.steps[1:]
	f.mu.Unlock()
	switch v := s.(type) {
	case error:
		return nil, v
	case func(context.Context, func(provider.Delta)) error:
		return nil, v(ctx, onDelta)
	case *provider.Response:
		for _, b := range v.Content {
			if b.Type == message.Text {
				onDelta(provider.Delta{Kind: provider.DeltaText, Text: b.Text})
			}
		}
		return v, nil
	}
	panic("bad step")
}

type echoTool struct {
	ran  int
	mu   sync.Mutex
	slow time.Duration
	// onRun, when set, runs inside each call (background work queuing a notice).
	onRun func()
}

func (e *echoTool) Name() string            { return "Echo" }
func (e *echoTool) Description() string     { return "echo" }
func (e *echoTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (e *echoTool) ReadOnly() bool          { return true }
func (e *echoTool) Execute(ctx context.Context, c tool.Call) (tool.Result, error) {
	e.mu.Lock()
	e.ran++
	e.mu.Unlock()
	if e.onRun != nil {
		e.onRun()
	}
	if e.slow > 0 {
		select {
		case <-time.After(e.slow):
		case <-ctx.Done():
		}
	}
	return tool.Result{Content: "echo " + string(c.Input)}, nil
}

type denyChecker struct{}

func (denyChecker) Check(context.Context, permission.Request) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Deny, Message: "not allowed here"}, nil
}

func toolStep(calls ...[2]string) *provider.Response {
	var bs []message.Block
	for i, c := range calls {
		bs = append(bs, message.Block{Type: message.ToolUse, ID: c[0] + string(rune('a'+i)), Name: c[0], Input: json.RawMessage(c[1])})
	}
	return &provider.Response{Content: bs, StopReason: "tool_use", Usage: message.Usage{InputTokens: 10, OutputTokens: 5}}
}

func textStep(s string) *provider.Response {
	return &provider.Response{Content: []message.Block{message.TextBlock(s)}, StopReason: "end_turn", Usage: message.Usage{InputTokens: 3, OutputTokens: 2}}
}

type harness struct {
	prov   *fakeProvider
	rec    *turntest.Recorder
	echo   *echoTool
	events []event.Event
	mu     sync.Mutex
	rt     *Runtime
	deps   turn.Deps
}

func newHarness(t *testing.T, steps ...any) *harness {
	h := &harness{prov: &fakeProvider{steps: steps}, rec: &turntest.Recorder{}, echo: &echoTool{}}
	price := 1.0
	rt, err := New(Options{
		Models: ResolverFunc(func(string) (Model, error) {
			return Model{Provider: h.prov, ID: "m", Cost: func(u message.Usage) *float64 { c := float64(u.InputTokens) * price; return &c }}, nil
		}),
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.rt = rt
	em := event.NewEmitter("ses_1", 0, event.SinkFunc(func(e event.Event) { h.mu.Lock(); h.events = append(h.events, e); h.mu.Unlock() }))
	h.deps = turn.Deps{Events: em, Recorder: h.rec, Checker: permission.AllowAll{}, Tools: tool.NewRegistry(h.echo), Env: tool.NewEnv("ses_1", t.TempDir(), nil, "")}
	return h
}

func (h *harness) run(t *testing.T, ctx context.Context, in turn.Input) event.Event {
	t.Helper()
	if in.Prompt == "" {
		in.Prompt = "hi"
	}
	res, err := h.rt.RunTurn(ctx, in, h.deps)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (h *harness) types() []string {
	var out []string
	for _, e := range h.events {
		out = append(out, string(e.Type))
	}
	return out
}

func TestLoopToolThenAnswer(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{"x":1}`}, [2]string{"Echo", `{"x":2}`}), textStep("all done"))
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeSuccess || res.IsError || res.Result != "all done" || res.NumTurns != 2 {
		t.Fatalf("result: %+v", res)
	}
	if res.Usage.InputTokens != 13 || res.CostUSD == nil || *res.CostUSD != 13 {
		t.Errorf("usage/cost: %+v %v", res.Usage, res.CostUSD)
	}
	want := "status context tool_use tool_use tool_result tool_result text context result done"
	if got := strings.Join(h.types(), " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	for i, e := range h.events {
		if e.Seq != int64(i+1) || e.SessionID != "ses_1" {
			t.Fatalf("bad envelope %+v", e)
		}
	}
	// user, assistant(tool_use x2), user(tool_result x2), assistant(text)
	if len(h.rec.Messages()) != 4 || len(h.rec.Messages()[2].Content) != 2 || h.rec.Messages()[2].Content[0].ToolUseID != "Echoa" {
		t.Fatalf("stored: %+v", h.rec.Messages())
	}
	// The second call saw the tool results.
	if n := len(h.prov.calls[1].Messages); n != 3 {
		t.Errorf("second request had %d messages", n)
	}
}

func TestMaxTurns(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}), toolStep([2]string{"Echo", `{"a":2}`}), textStep("x"))
	res := h.run(t, context.Background(), turn.Input{MaxTurns: 1})
	if res.Subtype != event.SubtypeMaxTurns || !res.IsError || !strings.Contains(res.Error, "1 turns") {
		t.Fatalf("result %+v", res)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	h := newHarness(t,
		&provider.Error{Provider: "fake", Status: 429, Retryable: true, RetryAfter: 2 * time.Second, Message: "slow down"},
		&provider.Error{Provider: "fake", Status: 529, Retryable: true, Message: "overloaded"},
		textStep("ok"))
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeSuccess {
		t.Fatalf("%+v", res)
	}
	var retries []event.Event
	for _, e := range h.events {
		if e.Type == event.Retry {
			retries = append(retries, e)
		}
	}
	if len(retries) != 2 || retries[0].DelayMS != 2000 || retries[0].HTTPStatus != 429 || retries[1].Attempt != 2 {
		t.Fatalf("retries: %+v", retries)
	}
}

func TestFatalProviderError(t *testing.T) {
	h := newHarness(t, &provider.Error{Provider: "fake", Status: 401, Auth: true, Message: "invalid x-api-key"})
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeProviderError || !strings.Contains(res.Error, "API key") {
		t.Fatalf("%+v", res)
	}
	if len(h.prov.calls) != 1 {
		t.Errorf("auth errors must not be retried: %d calls", len(h.prov.calls))
	}
	// The user's prompt is kept even though the turn failed.
	if len(h.rec.Messages()) != 1 || h.rec.Messages()[0].Role != message.User {
		t.Errorf("stored: %+v", h.rec.Messages())
	}
}

func TestRetriesExhausted(t *testing.T) {
	var steps []any
	for i := 0; i < 10; i++ {
		steps = append(steps, &provider.Error{Provider: "fake", Status: 500, Retryable: true, Message: "boom"})
	}
	h := newHarness(t, steps...)
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeProviderError || len(h.prov.calls) != 6 {
		t.Fatalf("%+v after %d calls", res, len(h.prov.calls))
	}
}

func TestDoomLoop(t *testing.T) {
	var steps []any
	for i := 0; i < 5; i++ {
		steps = append(steps, toolStep([2]string{"Echo", `{"same": true, "k": 1}`}))
	}
	steps = append(steps, textStep("gave up"))
	h := newHarness(t, steps...)
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeSuccess {
		t.Fatal(res)
	}
	if h.echo.ran != 3 {
		t.Errorf("tool ran %d times, want 3 before the loop guard", h.echo.ran)
	}
	var doom int
	for _, e := range h.events {
		if e.Type == event.Error && strings.Contains(e.Error, "doom loop") {
			doom++
		}
	}
	if doom != 2 {
		t.Errorf("doom events %d", doom)
	}
}

func TestPermissionDenied(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{}`}), textStep("ok"))
	h.deps.Checker = denyChecker{}
	res := h.run(t, context.Background(), turn.Input{})
	if h.echo.ran != 0 || len(res.PermissionDenials) != 1 || res.PermissionDenials[0].Reason != "not allowed here" {
		t.Fatalf("ran=%d denials=%+v", h.echo.ran, res.PermissionDenials)
	}
	tr := h.rec.Messages()[2].Content[0]
	if !tr.IsError || !strings.Contains(tr.Content[0].Text, "Permission denied: not allowed here") {
		t.Errorf("tool result %+v", tr)
	}
}

func TestUnknownToolAndDisallowed(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Nope", `{}`}, [2]string{"Echo", `{}`}), textStep("ok"))
	h.run(t, context.Background(), turn.Input{DisallowedTools: []string{"Echo"}})
	c := h.rec.Messages()[2].Content
	if !c[0].IsError || !strings.Contains(c[0].Content[0].Text, `No tool named "Nope"`) || !c[1].IsError {
		t.Fatalf("%+v", c)
	}
	if len(h.prov.calls[0].Tools) != 0 {
		t.Errorf("disallowed tool offered: %+v", h.prov.calls[0].Tools)
	}
}

func TestInterruptDuringStreamKeepsPartial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := newHarness(t, func(ctx context.Context, on func(provider.Delta)) error {
		on(provider.Delta{Kind: provider.DeltaText, Text: "partial answer"})
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	res := h.run(t, ctx, turn.Input{})
	if res.Subtype != event.SubtypeInterrupted {
		t.Fatalf("%+v", res)
	}
	if len(h.rec.Messages()) != 2 || h.rec.Messages()[1].PlainText() != "partial answer" {
		t.Fatalf("stored %+v", h.rec.Messages())
	}
}

// In a synctest bubble the clock moves only when every goroutine waits, so
// the turn must end at the interrupt (50 ms), not when the tools would
// have finished (5 s), however loaded the machine is.
func TestInterruptDuringToolsPairsResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h := newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}, [2]string{"Echo", `{"a":2}`}))
		h.echo.slow = 5 * time.Second
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		start := time.Now()
		res := h.run(t, ctx, turn.Input{})
		if took := time.Since(start); took != 50*time.Millisecond || res.Subtype != event.SubtypeInterrupted {
			t.Fatalf("interrupt not prompt: the turn took %v, want 50ms (%+v)", took, res)
		}
		if len(h.rec.Messages()) != 3 || len(h.rec.Messages()[2].Content) != 2 {
			t.Fatalf("tool results not stored in pairs: %+v", h.rec.Messages())
		}
	})
}

func TestRepairHistory(t *testing.T) {
	use := message.Block{Type: message.ToolUse, ID: "t1", Name: "Echo", Input: json.RawMessage(`{}`)}
	h := []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("a")}},
		{Role: message.Assistant, Content: []message.Block{use}},
		{Role: message.User, Content: []message.Block{message.TextBlock("b")}},
		{Role: message.User, Content: []message.Block{message.TextBlock("c")}},
	}
	out := repairHistory(h)
	if len(out) != 3 {
		t.Fatalf("want 3 messages, got %d", len(out))
	}
	last := out[2].Content
	if last[0].Type != message.ToolResult || last[0].ToolUseID != "t1" || !last[0].IsError || len(last) != 3 {
		t.Fatalf("repair: %+v", last)
	}
	// A killed process leaves a dangling tool_use at the end.
	out = repairHistory(h[:2])
	if len(out) != 3 || out[2].Content[0].ToolUseID != "t1" {
		t.Fatalf("dangling: %+v", out)
	}
}

type namedTool struct {
	echoTool
	name string
}

func (n *namedTool) Name() string { return n.name }

// A server named in --disallowedTools is neither offered nor callable.
func TestDisallowedServerNotOffered(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"mcp__gh__issue", `{}`}), textStep("ok"))
	h.deps.Tools.Add(&namedTool{name: "mcp__gh__issue"}, &namedTool{name: "mcp__other__x"})
	h.run(t, context.Background(), turn.Input{DisallowedTools: []string{"mcp__gh"}})
	var offered []string
	for _, s := range h.prov.calls[0].Tools {
		offered = append(offered, s.Name)
	}
	if slices.Contains(offered, "mcp__gh__issue") || !slices.Contains(offered, "mcp__other__x") || !slices.Contains(offered, "Echo") {
		t.Errorf("offered %v", offered)
	}
	if c := h.rec.Messages()[2].Content[0]; !c.IsError {
		t.Errorf("a call to a disallowed server ran: %+v", c)
	}
}

// writingTool is a custom tool that declares it writes the file its
// "target" names (tool.FileAccessor).
type writingTool struct{ namedTool }

func (*writingTool) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("target", true).FileAccess(input)
}

// --disallowedTools Edit takes away every tool whose declaration writes,
// whatever its name, and leaves the others.
func TestDisallowedEditTakesDeclaredWriters(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Scribble", `{"target":"a.txt"}`}), textStep("ok"))
	h.deps.Tools.Add(&writingTool{namedTool{name: "Scribble"}}, &namedTool{name: "Other"})
	h.run(t, context.Background(), turn.Input{DisallowedTools: []string{"Edit"}})
	var offered []string
	for _, s := range h.prov.calls[0].Tools {
		offered = append(offered, s.Name)
	}
	if slices.Contains(offered, "Scribble") || !slices.Contains(offered, "Other") || !slices.Contains(offered, "Echo") {
		t.Errorf("offered %v", offered)
	}
	if c := h.rec.Messages()[2].Content[0]; !c.IsError {
		t.Errorf("a call to a tool that writes ran under --disallowedTools Edit: %+v", c)
	}
}

var _ = errors.New

func TestSystemPromptReplaceAndAppend(t *testing.T) {
	h := newHarness(t, textStep("a"), textStep("b"))
	h.rt.opts.Prompt = &fakePrompter{base: "BASE"}
	h.run(t, context.Background(), turn.Input{AppendSystemPrompt: "EXTRA"})
	if got := strings.Join(h.prov.calls[0].System, "|"); got != "BASE|EXTRA" {
		t.Errorf("default system: %q", got)
	}
	h.run(t, context.Background(), turn.Input{SystemPrompt: "MINE", AppendSystemPrompt: "EXTRA"})
	if got := strings.Join(h.prov.calls[1].System, "|"); got != "MINE|EXTRA" {
		t.Errorf("replaced system: %q", got)
	}
}

type panicTool struct{ echoTool }

func (*panicTool) Name() string { return "Boom" }
func (*panicTool) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	// A runtime error, as a real bug raises, not a panic(value): the index
	// (the input's length) is past the end of the empty slice.
	var seen []byte
	return tool.Result{Content: string(seen[len(call.Input)])}, nil
}

func TestToolPanicBecomesErrorResult(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Boom", `{}`}), textStep("recovered"))
	h.deps.Tools.Add(&panicTool{})
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeSuccess || res.Result != "recovered" {
		t.Fatalf("result %+v", res)
	}
	tr := h.rec.Messages()[2].Content[0]
	if !tr.IsError || !strings.Contains(tr.Content[0].Text, "crashed") {
		t.Errorf("tool result %+v", tr)
	}
}

// Parallel read-only calls that are all denied record every denial (run
// with -race: they used to append to the turn's list without a lock).
func TestParallelDenialsAllRecorded(t *testing.T) {
	calls := make([][2]string, 8)
	for i := range calls {
		calls[i] = [2]string{"Echo", `{"n":` + string(rune('0'+i)) + `}`}
	}
	h := newHarness(t, toolStep(calls...), textStep("ok"))
	h.deps.Checker = denyChecker{}
	res := h.run(t, context.Background(), turn.Input{})
	if len(res.PermissionDenials) != len(calls) {
		t.Fatalf("denials %d, want %d", len(res.PermissionDenials), len(calls))
	}
}

type hookLog struct {
	mu     sync.Mutex
	calls  []string
	stopOn string // PostToolUse of this tool answers "continue": false
	// replace is PostToolUse's updatedToolOutput; batch PostToolBatch's feedback.
	replace *string
	batch   string
}

func (h *hookLog) add(s string) { h.mu.Lock(); h.calls = append(h.calls, s); h.mu.Unlock() }
func (h *hookLog) UserPromptSubmit(context.Context, string, string, string) (string, string, error) {
	return "", "", nil
}
func (h *hookLog) PostToolUse(_ context.Context, _, _, tool, _ string, _ []byte, _ string) (string, *string, error) {
	h.add("post " + tool)
	if tool == h.stopOn {
		return "", nil, &StopTurn{Reason: "budget reached"}
	}
	return "", h.replace, nil
}
func (h *hookLog) PostToolBatch(_ context.Context, _, _ string, calls []BatchCall) (string, error) {
	h.add(fmt.Sprintf("batch %d", len(calls)))
	return h.batch, nil
}
func (h *hookLog) StopFailure(_ context.Context, _, _ string, err error, _ string) error {
	h.add("stopfailure " + err.Error())
	return nil
}
func (h *hookLog) PostToolUseFailure(_ context.Context, _, _, tool, _ string, _ []byte, errText string, interrupted bool) (string, error) {
	h.add("failure " + tool + " " + errText)
	return "check the path", nil
}
func (h *hookLog) Stop(_ context.Context, _, _ string, active bool, last string) (string, error) {
	h.add(fmt.Sprintf("stop %v %s", active, last))
	if !active {
		return "run the tests too", nil
	}
	return "", nil
}

type failTool struct{ echoTool }

func (*failTool) Name() string { return "Fail" }
func (*failTool) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.ErrorResult("no such file"), nil
}

// A failed call runs PostToolUseFailure (not PostToolUse), and its
// feedback reaches the model with the error; a second Stop hook call says
// stop_hook_active and gets the model's last text.
func TestPostToolUseFailureAndStopHooks(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{}`}, [2]string{"Fail", `{}`}), textStep("ok"))
	log := &hookLog{}
	h.rt.opts.Hooks = log
	h.deps.Tools.Add(&failTool{})
	h.run(t, context.Background(), turn.Input{})
	slices.Sort(log.calls[:2]) // both are read-only and run in parallel
	if strings.Join(log.calls, "|") != "failure Fail no such file|post Echo|batch 2|stop false ok|stop true fallback" {
		t.Errorf("hooks ran %q", log.calls)
	}
	tr := h.rec.Messages()[2].Content[1]
	if !tr.IsError || !strings.Contains(tr.Content[0].Text, "PostToolUseFailure hook feedback: check the path") {
		t.Errorf("failure result %+v", tr)
	}
}

// A PostToolUse hook's "continue": false ends the turn after the step's
// tool calls, without another model call.
func TestHookStopsTurn(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{}`}), textStep("never"))
	h.rt.opts.Hooks = &hookLog{stopOn: "Echo"}
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeSuccess || len(h.prov.calls) != 1 || len(h.rec.Messages()) != 3 {
		t.Fatalf("result %+v, model calls %d, stored %d", res, len(h.prov.calls), len(h.rec.Messages()))
	}
	found := false
	for _, e := range h.events {
		found = found || (e.Type == event.Status && strings.Contains(e.Message, "budget reached"))
	}
	if !found {
		t.Errorf("the stop reason was not shown: %v", h.types())
	}
}

type interruptChecker struct{}

func (interruptChecker) Check(context.Context, permission.Request) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Deny, Message: "stop here", Interrupt: true}, nil
}

// A denial that interrupts ends the turn after the step.
func TestInterruptingDenialEndsTurn(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{}`}), textStep("never"))
	h.deps.Checker = interruptChecker{}
	res := h.run(t, context.Background(), turn.Input{})
	if len(h.prov.calls) != 1 || len(res.PermissionDenials) != 1 || h.echo.ran != 0 {
		t.Errorf("model calls %d, denials %+v, ran %d", len(h.prov.calls), res.PermissionDenials, h.echo.ran)
	}
}

// PostToolUse's updatedToolOutput replaces what the model reads of the
// result, and PostToolBatch's feedback follows the batch's last result.
func TestPostToolUseReplacesOutputAndBatchFeedback(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{"text":"secret 123"}`}), textStep("ok"))
	redacted := "[redacted by hook]"
	log := &hookLog{replace: &redacted, batch: "remember the tests"}
	h.rt.opts.Hooks = log
	h.run(t, context.Background(), turn.Input{})
	tr := h.rec.Messages()[2].Content[0]
	if tr.Content[0].Text != redacted {
		t.Errorf("tool result the model reads = %q, want the hook's %q", tr.Content[0].Text, redacted)
	}
	if last := tr.Content[len(tr.Content)-1].Text; last != "PostToolBatch hook feedback: remember the tests" {
		t.Errorf("last block of the result = %q, want the PostToolBatch feedback", last)
	}
}

// A turn the model call ends runs StopFailure with the error.
func TestStopFailureHook(t *testing.T) {
	h := newHarness(t, &provider.Error{Provider: "p", Status: 400, Message: "bad request"})
	log := &hookLog{}
	h.rt.opts.Hooks = log
	res := h.run(t, context.Background(), turn.Input{})
	if res.Subtype != event.SubtypeProviderError {
		t.Fatalf("subtype %q", res.Subtype)
	}
	if strings.Join(log.calls, "|") != "stopfailure p: HTTP 400: bad request" {
		t.Errorf("hooks ran %q", log.calls)
	}
}
