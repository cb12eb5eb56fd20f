package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// bigTool returns kb kilobytes of text named after its input, like a Read
// of a large file.
type bigTool struct{}

func (bigTool) Name() string            { return "BigRead" }
func (bigTool) Description() string     { return "reads a big file" }
func (bigTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (bigTool) ReadOnly() bool          { return true }
func (bigTool) Execute(_ context.Context, c tool.Call) (tool.Result, error) {
	var in struct {
		Name string `json:"name"`
		KB   int    `json:"kb"`
	}
	_ = json.Unmarshal(c.Input, &in)
	line := fmt.Sprintf("%s: some source line with code in it, padded to look like a real file\n", in.Name)
	return tool.Result{Content: strings.Repeat(line, in.KB*1024/len(line))}, nil
}

const summaryText = "SUMMARY-OF-EARLIER-WORK: read the files, nothing changed yet."

// longScript is steps tool calls of kb KB each, then a final answer.
func longScript(steps, kb int) scripted.Script {
	var s scripted.Script
	for i := range steps {
		s.Steps = append(s.Steps, scripted.ToolStep(scripted.Call("BigRead", map[string]any{"name": fmt.Sprintf("file%02d.go", i), "kb": kb})))
	}
	s.Steps = append(s.Steps, scripted.TextStep("task complete"))
	s.Fallback = &scripted.Step{Text: summaryText}
	s.StepMarkers = true
	return s
}

type liveHarness struct {
	srv    *scripted.Server
	rec    *turntest.Recorder
	rt     *Runtime
	mu     sync.Mutex
	events []event.Event
	deps   turn.Deps
}

// newLive runs the native loop against the scripted server over the given
// wire protocol, with a catalog window of window tokens.
func newLive(t *testing.T, kind string, script scripted.Script, window int64, cfg compact.Config) *liveHarness {
	t.Helper()
	h := &liveHarness{rec: &turntest.Recorder{}}
	var url string
	h.srv, url = testfiles.Scripted(t, script)
	base := url
	if kind != "anthropic" {
		base = url + "/v1"
	}
	prov, err := providers.New(provider.Config{Name: kind, Kind: kind, BaseURL: base, APIKey: "x"})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{
		Models: ResolverFunc(func(string) (Model, error) {
			return Model{Provider: prov, ID: "claude-sonnet-4-5", MaxOutput: 4096, ContextWindow: window}, nil
		}),
		Sleep:      func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		Compaction: cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.rt = rt
	h.deps = h.depsFor(t)
	return h
}

func (h *liveHarness) depsFor(t *testing.T) turn.Deps {
	em := event.NewEmitter("ses_1", 0, event.SinkFunc(func(e event.Event) { h.mu.Lock(); h.events = append(h.events, e); h.mu.Unlock() }))
	return turn.Deps{Events: em, Recorder: h.rec, Checker: permission.AllowAll{}, Tools: tool.NewRegistry(bigTool{}), Env: tool.NewEnv("ses_1", t.TempDir(), nil, "")}
}

func (h *liveHarness) run(t *testing.T, ctx context.Context, prompt string) event.Event {
	t.Helper()
	res, err := h.rt.RunTurn(ctx, turn.Input{SessionID: "ses_1", Prompt: prompt, Model: "scripted/m"}, h.deps)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (h *liveHarness) ofType(ty event.Type) []event.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []event.Event
	for _, e := range h.events {
		if e.Type == ty {
			out = append(out, e)
		}
	}
	return out
}

// maxMainRequest is the largest completion request in server tokens.
func (h *liveHarness) maxRequest() int64 {
	var m int64
	for _, r := range h.srv.Requests() {
		if r.API == scripted.APIAnthropic || r.API == scripted.APIOpenAI {
			m = max(m, int64(len(r.RawBody)/4))
		}
	}
	return m
}

func (h *liveHarness) boundaries() []message.Message {
	var out []message.Message
	for _, m := range h.rec.Messages() {
		if m.Kind == message.KindCompaction {
			out = append(out, m)
		}
	}
	return out
}

var wires = []string{"anthropic", "openai-compatible"}

func off() *bool { f := false; return &f }

// A 30-step session of 36 KB tool results (about 9k tokens each, 270k in
// all) under a 200k window: pruning alone keeps every request inside the
// window, and with pruning off compaction does.
func TestLongSessionStaysInsideWindow(t *testing.T) {
	for _, wire := range wires {
		for _, mode := range []string{"prune", "compact-only"} {
			t.Run(wire+"/"+mode, func(t *testing.T) {
				cfg := compact.Config{}
				if mode == "compact-only" {
					cfg.Prune = off()
				}
				script := longScript(30, 36)
				script.ContextLimit = 200_000
				h := newLive(t, wire, script, 200_000, cfg)
				res := h.run(t, context.Background(), "read all the files and report")
				if res.Subtype != event.SubtypeSuccess || res.Result != "task complete" {
					t.Fatalf("result: %+v", res)
				}
				if got := h.maxRequest(); got > 200_000 {
					t.Errorf("a request of %d tokens passed the 200k window", got)
				}
				for _, r := range h.srv.Requests() {
					if r.Overflow {
						t.Errorf("the server refused a request as too long (step %d)", r.Step)
					}
				}
				n := len(h.boundaries())
				if mode == "prune" && n != 0 {
					t.Errorf("pruning alone should have been enough, got %d compactions", n)
				}
				if mode == "compact-only" {
					if n == 0 {
						t.Fatal("no compaction happened")
					}
					cb := h.ofType(event.CompactBoundary)
					if len(cb) != n || cb[0].Trigger != "auto" || cb[0].TokensBefore <= cb[0].TokensAfter || cb[0].TokensAfter == 0 {
						t.Errorf("compact_boundary events: %+v", cb)
					}
					assertSummaryReachesNextRequest(t, h)
				}
				if ctx := h.ofType(event.Context); len(ctx) < 30 || ctx[0].ContextWindow != 200_000 || ctx[0].ContextTokens <= 0 {
					t.Errorf("context events: %d, first %+v", len(ctx), ctx[0])
				}
			})
		}
	}
}

// assertSummaryReachesNextRequest: the first main request after the first
// compaction carries the summary and no longer the first file's content.
func assertSummaryReachesNextRequest(t *testing.T, h *liveHarness) {
	t.Helper()
	sawSummaryRequest := false
	for _, r := range h.srv.Requests() {
		if r.API != scripted.APIAnthropic && r.API != scripted.APIOpenAI {
			continue
		}
		if r.Side {
			sawSummaryRequest = true
			continue
		}
		if !sawSummaryRequest {
			continue
		}
		body := string(r.RawBody)
		if !strings.Contains(body, "SUMMARY-OF-EARLIER-WORK") {
			t.Fatalf("the request after the compaction lacks the summary")
		}
		if strings.Contains(body, "file00.go: some source line") {
			t.Fatalf("the request after the compaction still holds the first result")
		}
		return
	}
	t.Fatal("no request followed the summary request")
}

// The server's real window is 50k while the catalog says 200k: the first
// overflow error is recovered from by compacting, the real limit is
// learned and kept in the session meta, and the task completes. Every
// dialect of the OpenAI-compatible servers is tried.
func TestOverflowRecoveryLearnsRealLimit(t *testing.T) {
	cases := []struct{ wire, dialect string }{
		{"anthropic", ""}, {"openai-compatible", "openai"}, {"openai-compatible", "vllm"},
		{"openai-compatible", "deepseek"}, {"openai-compatible", "llamacpp"}, {"openai-compatible", "lmstudio"},
		{"openai-compatible", "ollama"}, {"openai-compatible", "openrouter"},
	}
	for _, c := range cases {
		t.Run(c.wire+"/"+c.dialect, func(t *testing.T) {
			script := longScript(20, 16)
			script.ContextLimit = 50_000
			script.OverflowDialect = c.dialect
			h := newLive(t, c.wire, script, 200_000, compact.Config{})
			res := h.run(t, context.Background(), "read all the files and report")
			if res.Subtype != event.SubtypeSuccess || res.Result != "task complete" {
				t.Fatalf("result: %+v", res)
			}
			overflows := 0
			for _, r := range h.srv.Requests() {
				if r.Overflow {
					overflows++
				}
			}
			if overflows == 0 {
				t.Fatal("the server never refused a request: the test does not exercise recovery")
			}
			if overflows > 2 {
				t.Errorf("%d requests refused: the limit was not learned", overflows)
			}
			var first *message.Compaction
			for _, b := range h.boundaries() {
				first = b.Compaction
				break
			}
			if first == nil || first.Trigger != "overflow" {
				t.Fatalf("first compaction: %+v", first)
			}
			var learned struct {
				Tokens int64 `json:"tokens"`
			}
			if err := json.Unmarshal([]byte(h.rec.Value(metaLearnedLimit)), &learned); err != nil || learned.Tokens <= 0 || learned.Tokens > 50_000 {
				t.Errorf("learned limit %q", h.rec.Value(metaLearnedLimit))
			}
			// The next turn (a resume) starts from the learned limit.
			n := len(h.ofType(event.Context))
			h.run(t, context.Background(), "anything else?")
			if ctx := h.ofType(event.Context); len(ctx) <= n || ctx[n].ContextWindow != learned.Tokens {
				t.Errorf("next turn's window: %+v, want %d", ctx[n:], learned.Tokens)
			}
		})
	}
}

// A second turn after a compaction starts from the summary (as --resume
// does: the runtime rebuilds the conversation from the stored boundary).
func TestResumeContinuesFromSummary(t *testing.T) {
	script := longScript(30, 36)
	script.Steps = append(script.Steps, scripted.TextStep("second answer"))
	h := newLive(t, "anthropic", script, 200_000, compact.Config{Prune: off()})
	if res := h.run(t, context.Background(), "first"); res.Subtype != event.SubtypeSuccess {
		t.Fatalf("first turn: %+v", res)
	}
	if len(h.boundaries()) == 0 {
		t.Fatal("no compaction in the first turn")
	}
	stored := len(h.rec.Messages())
	h.srv.Reset()
	res := h.run(t, context.Background(), "and now?")
	if res.Subtype != event.SubtypeSuccess || res.Result != "second answer" {
		t.Fatalf("second turn: %+v", res)
	}
	reqs := h.srv.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests in the second turn", len(reqs))
	}
	body := string(reqs[0].RawBody)
	if !strings.Contains(body, "SUMMARY-OF-EARLIER-WORK") || strings.Contains(body, "file00.go: some") || !strings.Contains(body, "and now?") {
		t.Errorf("the resumed request does not continue from the summary")
	}
	if got := len(h.rec.Messages()); got != stored+2 {
		t.Errorf("stored messages %d -> %d: the originals must all stay", stored, got)
	}
}

// An interrupt while the summary is being written stores nothing: the
// session is as it was and the next turn works.
func TestInterruptDuringCompaction(t *testing.T) {
	script := longScript(30, 36)
	script.Fallback = &scripted.Step{Text: summaryText, Fault: &scripted.Fault{FirstByteDelayMS: 10_000, Always: true}}
	h := newLive(t, "anthropic", script, 200_000, compact.Config{Prune: off()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			for _, e := range h.ofType(event.Status) {
				if strings.Contains(e.Message, "compacting") {
					time.Sleep(50 * time.Millisecond)
					cancel()
					return
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res := h.run(t, ctx, "read everything")
	if res.Subtype != event.SubtypeInterrupted {
		t.Fatalf("result: %+v", res)
	}
	if n := len(h.boundaries()); n != 0 {
		t.Fatalf("%d compactions stored by an interrupted compaction", n)
	}
	// Resume against a server whose summaries are fast.
	fast := longScript(30, 36)
	h2 := newLive(t, "anthropic", fast, 200_000, compact.Config{Prune: off()})
	h2.rec = h.rec
	h2.deps = h2.depsFor(t)
	if res := h2.run(t, context.Background(), "go on"); res.Subtype != event.SubtypeSuccess || res.Result != "task complete" {
		t.Fatalf("resumed turn: %+v", res)
	}
	if len(h2.boundaries()) == 0 {
		t.Error("the resumed turn did not compact")
	}
}

// /compact [focus] as a prompt compacts now, with the focus in the summary
// request, and stores no prompt.
func TestManualCompactCommand(t *testing.T) {
	script := longScript(3, 4)
	h := newLive(t, "openai-compatible", script, 200_000, compact.Config{})
	if res := h.run(t, context.Background(), "read three files"); res.Subtype != event.SubtypeSuccess {
		t.Fatalf("turn: %+v", res)
	}
	before := len(h.rec.Messages())
	res := h.run(t, context.Background(), "/compact keep the file names")
	if res.Subtype != event.SubtypeSuccess || !strings.Contains(res.Result, "Compacted") {
		t.Fatalf("compact: %+v", res)
	}
	msgs := h.rec.Messages()
	if len(msgs) != before+1 || msgs[len(msgs)-1].Kind != message.KindCompaction || msgs[len(msgs)-1].Compaction.Trigger != "manual" {
		t.Fatalf("stored after /compact: %d messages, last %+v", len(msgs)-before, msgs[len(msgs)-1])
	}
	var sawFocus bool
	for _, r := range h.srv.Requests() {
		if r.Side && strings.Contains(string(r.RawBody), "keep the file names") {
			sawFocus = true
		}
	}
	if !sawFocus {
		t.Error("the focus did not reach the summary request")
	}
}

type fakeCompactHooks struct {
	mu    sync.Mutex
	pre   []string // trigger|instructions
	post  []string // trigger|summary
	block string
}

func (f *fakeCompactHooks) PreCompact(_ context.Context, _, _, trigger, instr string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pre = append(f.pre, trigger+"|"+instr)
	return f.block, nil
}

func (f *fakeCompactHooks) PostCompact(_ context.Context, _, _, trigger, summary string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.post = append(f.post, trigger+"|"+summary)
	return nil
}

// PreCompact sees the trigger and the focus and may block; PostCompact gets
// the summary.
func TestCompactHooks(t *testing.T) {
	h := newLive(t, "anthropic", longScript(2, 2), 200_000, compact.Config{})
	hooks := &fakeCompactHooks{block: "not now"}
	h.rt.opts.CompactHooks = hooks
	h.run(t, context.Background(), "read two files")
	res := h.run(t, context.Background(), "/compact the reads")
	if !res.IsError || !strings.Contains(res.Error, "PreCompact hook: not now") || len(h.boundaries()) != 0 {
		t.Fatalf("blocked compaction: %+v", res)
	}
	hooks.block = ""
	if res := h.run(t, context.Background(), "/compact the reads"); res.IsError {
		t.Fatalf("compaction: %+v", res)
	}
	if len(hooks.pre) != 2 || hooks.pre[1] != "manual|the reads" || len(hooks.post) != 1 || hooks.post[0] != "manual|"+summaryText {
		t.Errorf("hooks saw pre %q post %q", hooks.pre, hooks.post)
	}
}

// compaction.model writes the summary; the session's model does the rest.
func TestSummaryModelFromConfig(t *testing.T) {
	h := newLive(t, "anthropic", longScript(2, 2), 200_000, compact.Config{Model: "scripted/small"})
	base := h.rt.opts.Models
	h.rt.opts.Models = ResolverFunc(func(spec string) (Model, error) {
		m, err := base.Resolve(spec)
		if spec == "scripted/small" {
			m.ID = "claude-haiku-4-5"
		}
		return m, err
	})
	h.run(t, context.Background(), "read two files")
	if res := h.run(t, context.Background(), "/compact"); res.IsError {
		t.Fatalf("compact: %+v", res)
	}
	var models []string
	for _, r := range h.srv.Requests() {
		if r.Side {
			models = append(models, r.Model())
		}
	}
	if len(models) != 1 || models[0] != "claude-haiku-4-5" {
		t.Errorf("summary requests went to %v", models)
	}
	if b := h.boundaries(); len(b) != 1 || b[0].Compaction.Model != "scripted/small" {
		t.Errorf("boundary: %+v", b)
	}
}

// A window too small for even the summary fails the turn with an error
// that says what to do, and stores no boundary.
func TestOverflowThatCannotBeRecovered(t *testing.T) {
	script := longScript(3, 16)
	script.ContextLimit = 2000
	h := newLive(t, "openai-compatible", script, 200_000, compact.Config{})
	res := h.run(t, context.Background(), "read")
	if res.Subtype != event.SubtypeProviderError || !strings.Contains(res.Error, "maximum context length is 2000 tokens") ||
		!strings.Contains(res.Error, "start a new session or use a model with a larger window") {
		t.Fatalf("result: %+v", res)
	}
	if len(h.boundaries()) != 0 {
		t.Error("a failed compaction stored a boundary")
	}
}

func TestFitOutputKeepsPromptPlusOutputInsideTheWindow(t *testing.T) {
	req := provider.Request{MaxTokens: 64000, ThinkingBudget: 32000}
	fitOutput(&req, 100_000, 200_000)
	if req.MaxTokens != 64000 || req.ThinkingBudget != 32000 {
		t.Errorf("room enough, yet changed: %+v", req)
	}
	fitOutput(&req, 150_000, 200_000)
	if req.MaxTokens != 46000 || req.ThinkingBudget != 32000 {
		t.Errorf("150k of 200k: %+v", req)
	}
	req = provider.Request{MaxTokens: 64000, ThinkingBudget: 32000}
	fitOutput(&req, 180_000, 200_000)
	if req.MaxTokens != 16000 || req.ThinkingBudget != 16000-minOutput {
		t.Errorf("180k of 200k: %+v", req)
	}
	req = provider.Request{MaxTokens: 64000, ThinkingBudget: 2000}
	fitOutput(&req, 199_000, 200_000)
	if req.MaxTokens != minOutput || req.ThinkingBudget != 0 {
		t.Errorf("full window: %+v", req)
	}
	req = provider.Request{MaxTokens: 64000}
	if fitOutput(&req, 199_000, 0); req.MaxTokens != 64000 {
		t.Errorf("unknown window: %+v", req)
	}
}
