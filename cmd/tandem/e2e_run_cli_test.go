package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestE2ERunJSONOutput(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*"})).WithUsage(scripted.Usage{InputTokens: 1000, OutputTokens: 100}),
		scripted.TextStep("Answer.").WithUsage(scripted.Usage{InputTokens: 2000, OutputTokens: 200}),
	}})
	r := x.Run("run", "-p", "hi", "--output-format", "json", "--model", "anthropic/claude-sonnet-5-5")
	mustSucceed(t, r)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 1 || len(r.Events) != 1 {
		t.Fatalf("json output must be one object, got:\n%s", r.Stdout)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"session_id", "usage", "total_cost_usd", "num_turns"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("result lacks %s: %s", k, lines[0])
		}
	}
	res := r.Result()
	if res.Type != event.Result || res.Result != "Answer." || res.NumTurns != 2 || res.Usage.InputTokens != 3000 || res.Usage.OutputTokens != 300 {
		t.Errorf("result %+v", res)
	}
	// claude-sonnet-5-5: $2 in, $10 out per million tokens.
	if want := 3000*2e-6 + 300*10e-6; res.CostUSD == nil || abs(*res.CostUSD-want) > 1e-9 {
		t.Errorf("cost %v, want %v", res.CostUSD, want)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestE2ERunOpenAIChatCompletions(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*.txt"})),
		scripted.TextStep("Found it via OpenAI."),
	}})
	x.WriteFile("x.txt", "")
	r := x.Run("run", "-p", "hi", "--output-format", "stream-json", "--model", "openai/gpt-5")
	mustSucceed(t, r)
	if r.Result().Result != "Found it via OpenAI." || r.Result().CostUSD == nil {
		t.Errorf("result %+v", r.Result())
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, q := range reqs {
		if q.API != scripted.APIOpenAI || !strings.HasSuffix(q.Path, "/chat/completions") || q.Model() != "gpt-5" {
			t.Errorf("request %s %s api=%s model=%s", q.Method, q.Path, q.API, q.Model())
		}
	}
	// The tool result went back as an OpenAI tool message.
	if !strings.Contains(string(reqs[1].RawBody), `"role":"tool"`) {
		t.Errorf("second request has no tool message:\n%s", reqs[1].RawBody)
	}
}

func TestE2ERunCustomProviderFromProjectConfig(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("Local model here.")}})
	x.WriteFile(".tandem/config.json", `{"providers":{"local":{"kind":"openai-compatible","base_url":"`+x.url+`/v1"}}}`)
	if tr := x.Run("trust", x.Work); tr.Code != 0 || !strings.Contains(tr.Stdout, x.Work) {
		t.Fatalf("tandem trust: %s%s", tr.Stdout, tr.Stderr)
	}
	r := x.Run("run", "-p", "hi", "--output-format", "json", "--model", "local/whatever")
	mustSucceed(t, r)
	if r.Result().Result != "Local model here." {
		t.Errorf("result %+v", r.Result())
	}
	if strings.Contains(r.Stdout, "total_cost_usd") {
		t.Errorf("cost of an unpriced model must be absent (unknown):\n%s", r.Stdout)
	}
	q := x.lastMain()
	if q.API != scripted.APIOpenAI || q.Model() != "whatever" {
		t.Errorf("request api=%s model=%s", q.API, q.Model())
	}
	if show := x.Run("sessions", "show", r.Result().SessionID); !strings.Contains(show.Stdout, "cost unknown") {
		t.Errorf("sessions show:\n%s", show.Stdout)
	}
}

func TestE2ESessionsCommands(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*"})),
		scripted.TextStep("Listed."),
	}, Fallback: &scripted.Step{Text: "ok"}})
	a := x.RunStream("first one")
	mustSucceed(t, a)
	other := filepath.Join(filepath.Dir(x.Work), "elsewhere")
	os.Mkdir(other, 0o755)
	b := x.RunStream("second one", "--cwd", other)
	mustSucceed(t, b)
	idA, idB := a.Result().SessionID, b.Result().SessionID

	l := x.Run("sessions", "list", "--all", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(l.Stdout), &list); err != nil || l.Code != 0 {
		t.Fatalf("list --all --json: %v\n%s%s", err, l.Stdout, l.Stderr)
	}
	got := map[string]map[string]any{}
	for _, s := range list {
		got[s["id"].(string)] = s
	}
	if len(got) != 2 || got[idA] == nil || got[idB] == nil {
		t.Fatalf("list --all: %+v", list)
	}
	if s := got[idA]; s["cwd"] != x.Work || s["model"] != "anthropic/claude-sonnet-5-5" || s["message_count"].(float64) != 4 || s["cost_usd"] == nil {
		t.Errorf("session A in list: %+v", s)
	}
	// Without --all only this folder's.
	if here := x.Run("sessions", "list"); !strings.Contains(here.Stdout, idA) || strings.Contains(here.Stdout, idB) {
		t.Errorf("sessions list (this folder):\n%s", here.Stdout)
	}

	ex, r := x.Export(idA)
	if r.Code != 0 || ex.Session["id"] != idA || len(ex.Messages) != 4 || ex.Messages[3].PlainText() != "Listed." {
		t.Errorf("export: %+v", ex)
	}

	d := x.Run("sessions", "delete", idA)
	if d.Code != 0 || !strings.Contains(d.Stdout, idA) {
		t.Fatalf("delete: exit %d %s %s", d.Code, d.Stdout, d.Stderr)
	}
	show := x.Run("sessions", "show", idA)
	if show.Code == 0 || !strings.Contains(show.Stderr, idA) || !strings.Contains(show.Stderr, "not found") {
		t.Errorf("show after delete: exit %d stderr %q", show.Code, show.Stderr)
	}
	if again := x.Run("sessions", "delete", idA); again.Code == 0 {
		t.Errorf("deleting twice succeeded")
	}
	if after := x.Run("sessions", "list", "--all", "--json"); strings.Contains(after.Stdout, idA) || !strings.Contains(after.Stdout, idB) {
		t.Errorf("list after delete:\n%s", after.Stdout)
	}
}

// A -p prompt with standard input left open and silent (a CI runner, a
// parent process) must not hang: tandem waits briefly, then goes on.
func TestE2ERunStdinOpenButSilent(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("answer")}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := x.Command(ctx, "run", "-p", "hi", "--model", "anthropic/claude-sonnet-5-5")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // open, never written, until the test ends
	defer pr.Close()
	cmd.Stdin = pr
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil || string(out) != "answer\n" {
		t.Fatalf("out %q err %v after %v\nstderr:\n%s", out, err, time.Since(start), stderr.String())
	}
	if !strings.Contains(stderr.String(), "standard input") {
		t.Errorf("no notice on stderr: %q", stderr.String())
	}
	// Piped input that does arrive is appended to the -p prompt.
	cmd = x.Command(ctx, "run", "-p", "review this", "--model", "anthropic/claude-sonnet-5-5")
	cmd.Stdin = strings.NewReader("diff --git a/x b/x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, blocks := anthropicBlocks(x.lastMain().Messages()[0])
	if got := blocks[0]["text"]; got != "review this\n\ndiff --git a/x b/x" {
		t.Errorf("prompt %q", got)
	}
}

func TestPrinterRetriedTextDiffers(t *testing.T) {
	t.Parallel()
	var out, errw strings.Builder
	p := newPrinter("text", &out, &errw, false)
	for _, e := range []event.Event{
		{Type: event.Text, MessageID: "m1", Text: "Hello wor"},
		{Type: event.Retry, MessageID: "m1", Attempt: 1},
		{Type: event.Text, MessageID: "m1", Text: "Hello "},
		{Type: event.Text, MessageID: "m1", Text: "there."},
	} {
		p.Emit(e)
	}
	p.finish(event.Event{Type: event.Result, Result: "Hello there."})
	if got := out.String(); got != "Hello wor\nHello there.\n" {
		t.Errorf("got %q", got)
	}
}

// --max-budget-usd: at claude-sonnet-5-5's $2 per million input tokens each
// step below costs $0.20 (and a few output tokens at $10 per million), so a
// $0.30 budget lets two calls run and stops before the third, in tandem's run and in the Claude Code CLI protocol alike. A
// model with no price cannot run under a budget until the config gives
// it one.
func TestE2ERunMaxBudget(t *testing.T) {
	t.Parallel()
	step := func(pattern string) scripted.Step {
		return scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": pattern})).WithUsage(scripted.Usage{InputTokens: 100_000})
	}
	script := scripted.Script{Steps: []scripted.Step{step("*"), step("*.go"), scripted.TextStep("never reached")}}
	x := newE2E(t, script)
	r := x.RunStream("loop", "--max-budget-usd", "0.3")
	res := r.Result()
	if r.Code == 0 || res.Subtype != event.SubtypeMaxBudget || !res.IsError || res.NumTurns != 2 {
		t.Fatalf("exit %d result %+v", r.Code, res)
	}
	// (the few output tokens cost a little more than $0.40)
	if !strings.Contains(res.Error, "spent $0.40") || !strings.Contains(res.Error, "of the $0.30 budget") || res.CostUSD == nil || *res.CostUSD < 0.4 || *res.CostUSD > 0.41 {
		t.Errorf("error %q cost %v", res.Error, res.CostUSD)
	}
	if n := len(x.srv.MainRequests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if r := x.Run("run", "-p", "x", "--max-budget-usd", "-1"); r.Code == 0 || !strings.Contains(r.Stderr, "--max-budget-usd -1: give an amount in US dollars") {
		t.Errorf("negative budget: exit %d stderr %q", r.Code, r.Stderr)
	}
	// max_budget_usd in the project's config (which may only tighten it,
	// so it needs no trust) applies when the flag is not given.
	x = newE2E(t, script)
	x.WriteFile(".tandem/config.json", `{"max_budget_usd": 0.3}`)
	if res := x.RunStream("loop").Result(); res.Subtype != event.SubtypeMaxBudget || res.NumTurns != 2 {
		t.Errorf("config max_budget_usd: %+v", res)
	}

	// The Claude Code CLI protocol's flag stops the same way.
	x = newE2E(t, script)
	r = x.Run("-p", "loop", "--max-budget-usd", "0.3", "--output-format", "json", "--model", "claude-sonnet-5-5")
	var line struct {
		Subtype        string   `json:"subtype"`
		TerminalReason string   `json:"terminal_reason"`
		NumTurns       int      `json:"num_turns"`
		Errors         []string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &line); err != nil {
		t.Fatalf("claude protocol output %q: %v", r.Stdout, err)
	}
	if line.Subtype != "error_max_budget_usd" || line.TerminalReason != "max_budget" || line.NumTurns != 2 ||
		len(line.Errors) != 1 || !strings.Contains(line.Errors[0], "$0.30 budget") {
		t.Errorf("claude protocol result %+v", line)
	}

	// A model the catalog has no price for: refused before any call, then
	// priced in the config.
	x = newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	r = x.Run("run", "-p", "hi", "--output-format", "stream-json", "--model", "openai/house-model", "--max-budget-usd", "1")
	if res := r.Result(); res.Subtype != event.SubtypeMaxBudget || !strings.Contains(res.Error, "price of openai/house-model is unknown") || len(x.srv.MainRequests()) != 0 {
		t.Fatalf("unpriced model: %+v after %d calls", res, len(x.srv.MainRequests()))
	}
	x.WriteFile(".tandem/config.json", `{"providers": {"openai": {"models": {"house-model": {"price": {"input": 2, "output": 8}}}}}}`)
	r = x.Run("run", "-p", "hi", "--output-format", "stream-json", "--model", "openai/house-model", "--max-budget-usd", "1", "--trust-project")
	if res := r.Result(); res.Subtype != event.SubtypeSuccess || res.CostUSD == nil || *res.CostUSD <= 0 {
		t.Fatalf("priced in the config: exit %d %+v\n%s", r.Code, res, r.Stderr)
	}
}

// A sub-agent runs under what its parent's turn has left: with $5 and the
// parent's first call at $1, the child stops after its second $3 call
// (where it would have gone on), and the parent, now at $7, makes no
// further call. The user's config prices an input token at $1, so the
// steps stay far from the context window.
func TestE2ERunMaxBudgetCoversSubagents(t *testing.T) {
	t.Parallel()
	dollars := func(n int64) scripted.Usage { return scripted.Usage{InputTokens: n} }
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "dig", "prompt": "CHILD-TASK: dig", "model": "sonnet"})).WithUsage(dollars(1)),
			scripted.TextStep("never reached"),
		},
		Threads: []scripted.Thread{{Match: "CHILD-TASK", Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*"})).WithUsage(dollars(3)),
			scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*.go"})).WithUsage(dollars(3)),
			scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*.md"})).WithUsage(dollars(3)),
			scripted.TextStep("CHILD-REPORT never reached"),
		}}},
	})
	cfg := `{"providers": {"anthropic": {"models": {"claude-sonnet-5-5": {"price": {"input": 1000000, "output": 0}}}}}}`
	x.WriteConfig(cfg)
	r := x.RunStream("dig", "--max-budget-usd", "5")
	res := r.Result()
	if res.Subtype != event.SubtypeMaxBudget || res.NumTurns != 1 || res.CostUSD == nil || *res.CostUSD != 7 {
		t.Fatalf("result %+v (cost %v)", res, res.CostUSD)
	}
	if n := len(x.srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want the parent's one and the child's two", n)
	}
	var agent event.Event
	for _, e := range r.Events {
		if e.Type == event.ToolResult && e.ToolUseID == "a1" {
			agent = e
		}
	}
	if !agent.IsError || !strings.Contains(agent.Output, "budget") {
		t.Errorf("the Agent call's result does not say the sub-agent ran out of budget: %+v", agent)
	}
}

// Sub-agents running side by side spend from one budget: with $5, the
// parent's $1 call and two children at $3 a call, a child stops once the
// calls that have returned reach $5. A call is counted when it returns, so
// one still in flight can take a child one call past it: three or four
// calls in all, as the children interleave. (Each child had the whole
// remainder before: five calls, $13.)
func TestE2ERunMaxBudgetSharedByParallelSubagents(t *testing.T) {
	t.Parallel()
	dollars := func(n int64) scripted.Usage { return scripted.Usage{InputTokens: n} }
	child := func(match string) scripted.Thread {
		return scripted.Thread{Match: match, Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*"})).WithUsage(dollars(3)),
			scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*.go"})).WithUsage(dollars(3)),
			scripted.TextStep("REPORT never reached"),
		}}
	}
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(
				scripted.CallID("a1", "Agent", map[string]any{"description": "one", "prompt": "CHILD-ONE: dig", "model": "sonnet"}),
				scripted.CallID("a2", "Agent", map[string]any{"description": "two", "prompt": "CHILD-TWO: dig", "model": "sonnet"}),
			).WithUsage(dollars(1)),
			scripted.TextStep("never reached"),
		},
		Threads: []scripted.Thread{child("CHILD-ONE"), child("CHILD-TWO")},
	})
	cfg := `{"providers": {"anthropic": {"models": {"claude-sonnet-5-5": {"price": {"input": 1000000, "output": 0}}}}}}`
	x.WriteConfig(cfg)
	res := x.RunStream("dig twice", "--max-budget-usd", "5").Result()
	if res.Subtype != event.SubtypeMaxBudget || res.CostUSD == nil || (*res.CostUSD != 7 && *res.CostUSD != 10) {
		t.Fatalf("result %s %s %q (cost %v) after %d calls", res.Subtype, res.Result, res.Error, *res.CostUSD, len(x.srv.Requests()))
	}
	if n := len(x.srv.Requests()); n != 3 && n != 4 {
		t.Errorf("%d model calls, want 3 or 4", n)
	}
}
