package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunnerDecisions(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		timeout    float64
		want       string
		reason     string
	}{
		{"exit2", "cat > input.json; echo 'rm is not allowed' >&2; exit 2", 0, DecisionDeny, "rm is not allowed"},
		{"jsondeny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}'`, 0, DecisionDeny, "nope"},
		{"legacyblock", `echo '{"decision":"block","reason":"legacy"}'`, 0, DecisionDeny, "legacy"},
		{"allow", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, 0, DecisionAllow, ""},
		{"ask", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`, 0, DecisionAsk, "check"},
		{"silent", "exit 0", 0, DecisionNone, ""},
		{"fail", "echo oops >&2; exit 1", 0, DecisionNone, ""},
		{"slow", "sleep 120", 0.3, DecisionNone, ""},
	}
	for _, c := range cases {
		p := script(t, dir, c.name+".sh", c.body)
		cfg := Config{PreToolUse: {{Matcher: "Bash|Edit", Hooks: []Handler{{Type: "command", Command: p, Timeout: c.timeout}}}}}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		r := NewRunner(cfg, dir, nil)
		start := time.Now()
		out, err := r.PreToolUse(context.Background(), Input{SessionID: "s1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Decision != c.want || (c.reason != "" && out.Reason != c.reason) {
			t.Errorf("%s: %+v", c.name, out)
		}
		if c.name == "slow" && (time.Since(start) > 30*time.Second || len(out.Errors) != 1) {
			t.Errorf("timeout did not kill the hook: %v %+v", time.Since(start), out)
		}
		if c.name == "fail" && len(out.Errors) != 1 {
			t.Errorf("non-blocking failure not reported: %+v", out)
		}
	}
	// The hook got the input on stdin.
	data, err := os.ReadFile(filepath.Join(dir, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	json.Unmarshal(data, &in)
	if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Bash" || in["session_id"] != "s1" || in["cwd"] != dir {
		t.Errorf("stdin: %s", data)
	}
	// The matcher filters tools.
	p := script(t, dir, "deny.sh", "exit 2")
	r := NewRunner(Config{PreToolUse: {{Matcher: "Edit", Hooks: []Handler{{Type: "command", Command: p}}}}}, dir, nil)
	if out, _ := r.PreToolUse(context.Background(), Input{ToolName: "Bash"}); out.Decision != DecisionNone {
		t.Errorf("matcher ignored: %+v", out)
	}
}

func TestOtherEvents(t *testing.T) {
	dir := t.TempDir()
	ctxHook := script(t, dir, "ctx.sh", "echo 'remember the style guide'")
	block := script(t, dir, "block.sh", "echo 'tests are failing, keep going' >&2; exit 2")
	post := script(t, dir, "post.sh", `cat > post.json`)
	r := NewRunner(Config{
		UserPromptSubmit: {{Hooks: []Handler{{Type: "command", Command: ctxHook}}}},
		Stop:             {{Hooks: []Handler{{Type: "command", Command: block}}}},
		PostToolUse:      {{Matcher: "*", Hooks: []Handler{{Type: "command", Command: post}}}},
	}, dir, nil)
	out, _ := r.UserPromptSubmit(context.Background(), Input{Prompt: "hi"})
	if out.AdditionalContext != "remember the style guide" {
		t.Errorf("prompt context: %+v", out)
	}
	out, _ = r.Stop(context.Background(), Input{})
	if out.Decision != DecisionDeny || !strings.Contains(out.Reason, "tests are failing") {
		t.Errorf("stop block: %+v", out)
	}
	r.PostToolUse(context.Background(), Input{ToolName: "Read", ToolResponse: json.RawMessage(`{"ok":true}`)})
	data, _ := os.ReadFile(filepath.Join(dir, "post.json"))
	if !strings.Contains(string(data), `"tool_response":{"ok":true}`) {
		t.Errorf("post input: %s", data)
	}
	if err := (Config{"Nope": nil}).Validate(); err == nil {
		t.Errorf("unknown event must fail validation")
	}
	if err := (Config{PreToolUse: {{Matcher: "(", Hooks: nil}}}).Validate(); err == nil {
		t.Errorf("bad matcher must fail validation")
	}
}

// A callback hook is a hook like any other: its matcher selects it, one
// registered twice runs once, its answer is read as JSON output, and a
// failure, a slow answer or a body that is not JSON are non-blocking errors.
func TestRunnerCallbackHooks(t *testing.T) {
	calls := map[string]int{}
	var mu sync.Mutex
	cb := func(answer string, err error) Callback {
		return func(ctx context.Context, in Input) (json.RawMessage, error) {
			mu.Lock()
			calls[in.HookEventName+" "+in.ToolName]++
			mu.Unlock()
			if answer == "slow" {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return json.RawMessage(answer), err
		}
	}
	deny := Handler{Type: TypeCallback, ID: "h0", Callback: cb(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not here"},"systemMessage":"checked"}`, nil)}
	cfg := Config{
		PreToolUse:  {{Matcher: "Bash", Hooks: []Handler{deny}}, {Matcher: "Bash|Edit", Hooks: []Handler{deny}}},
		PostToolUse: {{Hooks: []Handler{{Type: TypeCallback, ID: "h1", Callback: cb(`{"continue":false,"stopReason":"enough","hookSpecificOutput":{"additionalContext":"ctx"}}`, nil)}}}},
		Stop: {{Hooks: []Handler{
			{Type: TypeCallback, ID: "h2", Callback: cb("", errors.New("host gone"))},
			{Type: TypeCallback, ID: "h3", Timeout: 0.2, Callback: cb("slow", nil)},
			{Type: TypeCallback, ID: "h4", Callback: cb("not json", nil)},
			{Type: TypeCallback, ID: "h5"}, // no function: skipped
		}}},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(cfg, t.TempDir(), []string{})
	out, err := r.PreToolUse(t.Context(), Input{ToolName: "Bash"})
	if err != nil || out.Decision != DecisionDeny || out.Reason != "not here" || out.SystemMessage != "checked" || calls["PreToolUse Bash"] != 1 {
		t.Errorf("PreToolUse: %+v %v calls %v", out, err, calls)
	}
	if out, _ := r.PreToolUse(t.Context(), Input{ToolName: "Edit"}); out.Decision != DecisionDeny || calls["PreToolUse Edit"] != 1 {
		t.Errorf("PreToolUse Edit: %+v", out)
	}
	if out, _ := r.PreToolUse(t.Context(), Input{ToolName: "Read"}); out.Decision != DecisionNone || calls["PreToolUse Read"] != 0 {
		t.Errorf("PreToolUse Read: %+v", out)
	}
	out, _ = r.PostToolUse(t.Context(), Input{ToolName: "Read"})
	if !out.Stop || out.StopReason != "enough" || out.AdditionalContext != "ctx" {
		t.Errorf("PostToolUse: %+v", out)
	}
	start := time.Now()
	out, _ = r.Stop(t.Context(), Input{})
	if out.Decision != DecisionNone || len(out.Errors) != 3 || time.Since(start) > 5*time.Second {
		t.Errorf("Stop: %+v after %v", out, time.Since(start))
	}
}
