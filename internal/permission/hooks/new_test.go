package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every event Claude Code 2.1 has may be named in settings; those tandem
// never fires validate and never run; a made-up name is still an error.
func TestClaudeOnlyEventsValidate(t *testing.T) {
	for _, ev := range append(Events(), ClaudeOnly()...) {
		cfg := Config{ev: {{Hooks: []Handler{{Type: TypeCommand, Command: "true"}}}}}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", ev, err)
		}
	}
	if err := (Config{"PreToolUze": {{Hooks: []Handler{{Type: TypeCommand, Command: "true"}}}}}).Validate(); err == nil || !strings.Contains(err.Error(), "ConfigChange") {
		t.Errorf("unknown event: %v", err)
	}
	if err := (Config{Stop: {{Hooks: []Handler{{Type: TypePrompt}}}}}).Validate(); err == nil || !strings.Contains(err.Error(), "prompt is empty") {
		t.Errorf("prompt hook without a prompt: %v", err)
	}
	if err := (Config{Stop: {{Hooks: []Handler{{Type: TypeHTTP, URL: "http://127.0.0.1:1/", Async: true}}}}}).Validate(); err == nil || !strings.Contains(err.Error(), "async") {
		t.Errorf("async http hook: %v", err)
	}
}

// The JSON outputs tandem now applies: updatedToolOutput (and
// updatedMCPToolOutput for MCP tools only), sessionTitle and a
// PermissionRequest allow's updatedPermissions.
func TestNewOutputs(t *testing.T) {
	run := func(in Input, stdout string) Outcome {
		return combineFor(in, []Handler{{Type: TypeCommand, Command: "x"}}, []result{{stdout: stdout}})
	}
	o := run(Input{HookEventName: PostToolUse, ToolName: "Bash"}, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"clean"}}`)
	if string(o.UpdatedToolOutput) != `"clean"` {
		t.Errorf("updatedToolOutput: %s", o.UpdatedToolOutput)
	}
	if o := run(Input{HookEventName: PostToolUse, ToolName: "Bash"}, `{"hookSpecificOutput":{"updatedMCPToolOutput":"x"}}`); o.UpdatedToolOutput != nil {
		t.Errorf("updatedMCPToolOutput applied to a built-in tool: %s", o.UpdatedToolOutput)
	}
	if o := run(Input{HookEventName: PostToolUse, ToolName: "mcp__gh__issue"}, `{"hookSpecificOutput":{"updatedMCPToolOutput":{"n":1}}}`); string(o.UpdatedToolOutput) != `{"n":1}` {
		t.Errorf("updatedMCPToolOutput for an MCP tool: %s", o.UpdatedToolOutput)
	}
	if o := run(Input{HookEventName: UserPromptSubmit}, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"Fix the parser"}}`); o.SessionTitle != "Fix the parser" {
		t.Errorf("sessionTitle: %q", o.SessionTitle)
	}
	o = run(Input{HookEventName: PermissionRequest}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`)
	if o.Decision != DecisionAllow || len(o.UpdatedPermissions) != 1 {
		t.Errorf("updatedPermissions: %+v", o)
	}
	if got := o.ClaudeOutput(PostToolUse); got["hookSpecificOutput"] != nil {
		t.Errorf("claude output without updates: %v", got)
	}
}

// An async command hook does not hold the event up: Run returns while
// the hook still waits for a file only the test writes after Run, and its
// output reaches the async sink afterwards.
func TestAsyncHookDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	p := script(t, dir, "async.sh", `while [ ! -e "`+gate+`" ]; do sleep 0.05; done
echo '{"systemMessage":"checked","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint is clean"},"decision":"block","reason":"too late"}'`)
	cfg := Config{PostToolUse: {{Hooks: []Handler{{Type: TypeCommand, Command: p, Async: true}}}}}
	r := NewRunner(cfg, dir, nil)
	got := make(chan Outcome, 1)
	r.SetAsyncSink(func(_ Input, o Outcome) { got <- o })
	out, err := r.PostToolUse(context.Background(), Input{ToolName: "Bash"})
	if err != nil || out.Decision != DecisionNone {
		t.Fatalf("Run: %+v %v", out, err)
	}
	select {
	case o := <-got:
		t.Fatalf("the async hook finished before its gate opened: %+v", o)
	default:
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-got:
		if o.AdditionalContext != "lint is clean" || o.SystemMessage != "checked" || o.Decision != DecisionNone {
			t.Errorf("async outcome: %+v", o)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the async hook's outcome never arrived")
	}
}

type fakeJudge struct {
	answer string
	asked  chan string
}

func (f fakeJudge) Prompt(_ context.Context, model, system, prompt string) (string, error) {
	f.asked <- "prompt " + model + ": " + prompt
	return f.answer, nil
}

func (f fakeJudge) Agent(_ context.Context, model, system, prompt string) (string, error) {
	f.asked <- "agent " + model + ": " + prompt
	return f.answer, nil
}

// Prompt and agent hooks ask the judge with $ARGUMENTS replaced by the
// input; ok false denies a PreToolUse and (by default) ends the turn, and
// on Stop keeps the turn going without ending it.
func TestPromptAndAgentHooks(t *testing.T) {
	for _, typ := range []string{TypePrompt, TypeAgent} {
		j := fakeJudge{answer: "Sure.\n```json\n{\"ok\": false, \"reason\": \"rm is destructive\"}\n```", asked: make(chan string, 4)}
		cfg := Config{PreToolUse: {{Matcher: "Bash", Hooks: []Handler{{Type: typ, Prompt: "Is this safe? $ARGUMENTS", Model: "fast"}}}},
			Stop: {{Hooks: []Handler{{Type: typ, Prompt: "Done?"}}}}}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		r := NewRunner(cfg, t.TempDir(), nil)
		r.SetJudge(j)
		out, err := r.PreToolUse(context.Background(), Input{SessionID: "s1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Decision != DecisionDeny || out.Reason != "rm is destructive" || !out.Stop {
			t.Errorf("%s PreToolUse: %+v", typ, out)
		}
		if q := <-j.asked; !strings.HasPrefix(q, typ+" fast: Is this safe? {") || !strings.Contains(q, `"tool_input":{"command":"rm -rf /"}`) {
			t.Errorf("%s asked %q", typ, q)
		}
		out, _ = r.Stop(context.Background(), Input{SessionID: "s1"})
		if out.Decision != DecisionDeny || out.Stop {
			t.Errorf("%s Stop: %+v", typ, out)
		}
		if q := <-j.asked; !strings.Contains(q, "Done?\n\nHook input:\n{") {
			t.Errorf("%s asked %q", typ, q)
		}
	}
	// Without a judge the hook is a non-blocking error.
	r := NewRunner(Config{Stop: {{Hooks: []Handler{{Type: TypePrompt, Prompt: "x"}}}}}, t.TempDir(), nil)
	if out, _ := r.Stop(context.Background(), Input{}); out.Decision != DecisionNone || len(out.Errors) != 1 {
		t.Errorf("no judge: %+v", out)
	}
	// An answer that is not the verdict is an error, not a decision.
	r.SetJudge(fakeJudge{answer: "I think so", asked: make(chan string, 1)})
	if out, _ := r.Stop(context.Background(), Input{}); out.Decision != DecisionNone || len(out.Errors) != 1 {
		t.Errorf("bad answer: %+v", out)
	}
}
