package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/turn"
)

// --json-schema reaches the CLI, whose answer (the model's
// StructuredOutput call) comes back in the result as the native runtime
// reports it: structured_output, compact, and the JSON as the result text.
// tandem's Checker lets StructuredOutput through without asking.
func TestRealCLIStructuredOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("StructuredOutput", map[string]any{"name": "Ada", "age": 36})),
		scripted.TextStep("done"),
	}})
	in := h.input("who wrote the first program?")
	in.JSONSchema = json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]}`)
	var asked []permission.Request
	checker := checkerFunc(func(_ context.Context, r permission.Request) (permission.Decision, error) {
		asked = append(asked, r)
		if !r.ReadOnly {
			return permission.Decision{Behavior: permission.Deny, Message: "only read-only calls here"}, nil
		}
		return permission.Decision{Behavior: permission.Allow}, nil
	})
	res := h.run(context.Background(), New(h.cfg, h.opts), in, checker)
	if res.Subtype != event.SubtypeSuccess || res.IsError {
		t.Fatalf("result %+v", res)
	}
	if got := string(res.StructuredOutput); got != `{"age":36,"name":"Ada"}` && got != `{"name":"Ada","age":36}` {
		t.Errorf("structured_output %q", got)
	}
	if len(asked) != 1 || asked[0].Tool != "StructuredOutput" || !asked[0].ReadOnly {
		t.Errorf("checker asked %+v, want one read-only StructuredOutput call", asked)
	}
	body := string(h.srv.MainRequests()[0].RawBody)
	if !strings.Contains(body, `"StructuredOutput"`) {
		t.Error("the CLI did not offer the model a StructuredOutput tool: --json-schema was not passed")
	}
}

// A schema tandem cannot compile fails the turn before the CLI starts,
// with the native runtime's words.
func TestRealCLIBadSchemaFailsEarly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}})
	in := h.input("hi")
	in.JSONSchema = json.RawMessage(`{"type": 12}`)
	res := h.run(context.Background(), New(h.cfg, h.opts), in, &recordingChecker{})
	if res.Subtype != event.SubtypeError || !strings.HasPrefix(res.Error, "--json-schema: ") {
		t.Fatalf("result %+v", res)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// overloadedFor wraps the harness's scripted server so that every
// messages request for model gets a 529 overloaded error.
func overloadedFor(t *testing.T, h *harness, model string) {
	t.Helper()
	inner := h.srv.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Model == model && strings.HasSuffix(r.URL.Path, "/messages") {
			w.Header().Set("content-type", "application/json")
			w.Header().Set("retry-after-ms", "10")
			w.WriteHeader(529)
			_, _ = w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h.opts.BaseURL = srv.URL
}

// --fallback-model reaches the CLI: with the main model overloaded the CLI
// switches, and tandem says so as the native runtime does (a retry event
// naming the model that answers), and stores the answer under that model.
func TestRealCLIFallbackModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello from the fallback")}})
	overloadedFor(t, h, "claude-sonnet-5-5")
	in := h.input("hi")
	in.FallbackModels = []string{"anthropic/claude-opus-4-5", "openai/gpt-5"}
	res := h.run(context.Background(), New(h.cfg, h.opts), in, &recordingChecker{})
	if res.Subtype != event.SubtypeSuccess || res.IsError {
		t.Fatalf("result %+v", res)
	}
	var fell *event.Event
	for _, e := range h.events.All() {
		if e.Type == event.Retry && e.Model != "" {
			fell = &e
		}
	}
	if fell == nil || fell.Model != "claude-opus-4-5" || fell.HTTPStatus != 529 ||
		fell.Message != "claude-sonnet-5-5 failed; falling back to claude-opus-4-5" {
		t.Fatalf("fallback event %+v", fell)
	}
	msgs := h.rec.Messages()
	if last := msgs[len(msgs)-1]; last.Model != "claude-opus-4-5" || last.PlainText() != "hello from the fallback" {
		t.Errorf("stored answer %+v", last)
	}
	for _, r := range h.srv.MainRequests() {
		if m := r.Model(); m != "claude-opus-4-5" {
			t.Errorf("request for %q reached the server", m)
		}
	}
}

// tandem's effort and thinking budget (the configured ones, and a turn's
// own, which wins) reach the model's request through the CLI. The model
// takes a thinking budget (the catalog's "budget" mode): Claude Code
// 2.1.332 sends adaptive thinking to adaptive models whatever it is told.
func TestRealCLIEffortAndThinking(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	h.opts.Effort, h.opts.ThinkingBudget = "low", 2048
	rt := New(h.cfg, h.opts)
	type wire struct {
		Thinking *struct {
			Type         string `json:"type"`
			BudgetTokens int64  `json:"budget_tokens"`
		} `json:"thinking"`
		OutputConfig *struct {
			Effort string `json:"effort"`
		} `json:"output_config"`
	}
	last := func() wire {
		reqs := h.srv.MainRequests()
		var w wire
		if err := json.Unmarshal(reqs[len(reqs)-1].RawBody, &w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	input := func(prompt string) turn.Input {
		in := h.input(prompt)
		in.Model = "anthropic/claude-opus-4-5"
		return in
	}
	if res := h.run(context.Background(), rt, input("hi"), &recordingChecker{}); res.IsError {
		t.Fatalf("result %+v", res)
	}
	w := last()
	if w.OutputConfig == nil || w.OutputConfig.Effort != "low" || w.Thinking == nil || w.Thinking.Type != "enabled" || w.Thinking.BudgetTokens != 2048 {
		t.Errorf("configured effort and thinking: request carries output_config %+v, thinking %+v", w.OutputConfig, w.Thinking)
	}

	in := input("again")
	in.Effort = "medium"
	b := int64(5000)
	in.ThinkingBudget = &b
	if res := h.run(context.Background(), rt, in, &recordingChecker{}); res.IsError {
		t.Fatalf("result %+v", res)
	}
	w = last()
	if w.OutputConfig == nil || w.OutputConfig.Effort != "medium" || w.Thinking == nil || w.Thinking.BudgetTokens != 5000 {
		t.Errorf("turn's effort and thinking: request carries output_config %+v, thinking %+v", w.OutputConfig, w.Thinking)
	}

	off := int64(0)
	in = input("third")
	in.ThinkingBudget = &off
	if res := h.run(context.Background(), rt, in, &recordingChecker{}); res.IsError {
		t.Fatalf("result %+v", res)
	}
	if w = last(); w.Thinking == nil || w.Thinking.Type != "disabled" {
		t.Errorf("thinking turned off for the turn, yet the request carries %+v", w.Thinking)
	}
}
