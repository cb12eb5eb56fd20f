package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// hookInputs reads a file of hook inputs, one JSON object a line.
func hookInputs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(path)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// userHooks writes hooks into tandem's user config (no project trust needed).
func userHooks(t *testing.T, x *e2e, hooks map[string]any) {
	t.Helper()
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"permissions": map[string]any{"hooks": hooks}})
}

func cmdHook(matcher, command string, extra ...any) map[string]any {
	h := map[string]any{"type": "command", "command": command}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i].(string)] = extra[i+1]
	}
	return map[string]any{"matcher": matcher, "hooks": []any{h}}
}

// One turn with a Bash call fires PostToolBatch with the batch, every
// input carries the common fields; PostToolUse's updatedToolOutput is what
// the next model request holds instead of the real output;
// UserPromptSubmit's sessionTitle names the session; an async PostToolUse
// hook does not hold the turn up: it waits for a file the Stop hook
// writes, and the SessionEnd hook waits for its mark, so the order in
// order.log is only possible if the turn went on while it ran.
func TestFeatureHooksAllEvents(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "printf 'ORIG%s' INALOUT"})),
		scripted.TextStep("done"),
	}})
	x.Env = append(x.Env, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=30000")
	dir := t.TempDir()
	inputs, order, gate := filepath.Join(dir, "inputs.jsonl"), filepath.Join(dir, "order.log"), filepath.Join(dir, "stop-ran")
	logAll := "cat >> " + inputs + "; echo >> " + inputs
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop", "SessionEnd"} {
		hooks[ev] = []any{cmdHook("", logAll)}
	}
	hooks["UserPromptSubmit"] = append(hooks["UserPromptSubmit"].([]any),
		cmdHook("", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"Hook-given title"}}'`))
	hooks["PostToolUse"] = append(hooks["PostToolUse"].([]any),
		cmdHook("Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"REDACTED-BY-HOOK"}}'`),
		cmdHook("Bash", "i=0; while [ ! -e "+gate+" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; echo async >> "+order, "async", true))
	hooks["Stop"] = append(hooks["Stop"].([]any), cmdHook("", "echo stop >> "+order+"; touch "+gate))
	hooks["SessionEnd"] = append(hooks["SessionEnd"].([]any),
		cmdHook("", "i=0; until grep -q async "+order+" || [ $i -ge 400 ]; do sleep 0.05; i=$((i+1)); done; echo end >> "+order))
	userHooks(t, x, hooks)

	r := x.RunDetached(streamArgs("run it", "--permission-mode", "trust")...)
	mustSucceed(t, r)
	id := r.Result().SessionID

	var events []string
	for _, in := range hookInputs(t, inputs) {
		ev, _ := in["hook_event_name"].(string)
		events = append(events, ev)
		if in["session_id"] != id || in["cwd"] != x.Work || in["permission_mode"] != "trust" {
			t.Errorf("%s input lacks the common fields: %v", ev, in)
		}
		if ev == "PostToolBatch" {
			calls, _ := in["tool_calls"].([]any)
			if len(calls) != 1 {
				t.Fatalf("PostToolBatch tool_calls: %v", in)
			}
			c := calls[0].(map[string]any)
			if c["tool_name"] != "Bash" || c["tool_use_id"] != "b1" || !strings.Contains(mustJSON(c["tool_response"]), "REDACTED-BY-HOOK") {
				t.Errorf("PostToolBatch call: %v", c)
			}
		}
		if ev == "SessionEnd" && in["reason"] != "other" {
			t.Errorf("SessionEnd of a finished run: reason %v, want other", in["reason"])
		}
	}
	want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop", "SessionEnd"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}

	body := x.lastRequestBody()
	if !strings.Contains(body, "REDACTED-BY-HOOK") || strings.Contains(body, "ORIGINALOUT") {
		t.Errorf("updatedToolOutput did not replace the result the model reads: %s", body)
	}
	if out := x.Run("sessions", "list"); !strings.Contains(out.Stdout, "Hook-given title") {
		t.Errorf("sessionTitle not stored; sessions list:\n%s%s", out.Stdout, out.Stderr)
	}
	got, _ := os.ReadFile(order)
	if strings.Fields(string(got)) == nil || strings.Join(strings.Fields(string(got)), " ") != "stop async end" {
		t.Errorf("order.log = %q, want stop, async, end (the async hook held the turn up)", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A turn the provider ends fires StopFailure with Claude Code's error kind.
func TestFeatureHooksStopFailure(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{{Text: "x", Fault: &scripted.Fault{Status: 400, Always: true}}}})
	inputs := filepath.Join(t.TempDir(), "inputs.jsonl")
	userHooks(t, x, map[string]any{"StopFailure": []any{cmdHook("", "cat >> "+inputs+"; echo >> "+inputs)}})
	r := x.RunDetached(streamArgs("hi")...)
	if !r.Result().IsError {
		t.Fatalf("the turn did not fail: %s", r.Stdout)
	}
	ins := hookInputs(t, inputs)
	if len(ins) != 1 || ins[0]["hook_event_name"] != "StopFailure" || ins[0]["error"] != "invalid_request" ||
		!strings.Contains(mustJSON(ins[0]["error_details"]), "400") || ins[0]["session_id"] != r.Result().SessionID {
		t.Errorf("StopFailure inputs: %v", ins)
	}
}

// A prompt hook and an agent hook deny a Bash call through the model's
// {"ok": false} answer: the call does not run, the reason is the denial's,
// and (Claude Code's default) the turn ends there. The agent hook's
// sub-agent reads a file with its tools before it answers.
func TestFeatureHooksPromptAndAgentDeny(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"prompt", "agent"} {
		t.Run(typ, func(t *testing.T) {
			reason := strings.ToUpper(typ) + "-HOOK says no"
			verdict := `{"ok": false, "reason": "` + reason + `"}`
			script := scripted.Script{Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "touch made.txt"})),
				scripted.TextStep("should not be reached"),
			}}
			if typ == "prompt" {
				script.Fallback = &scripted.Step{Text: verdict} // the hook's call has no tools: a side request
			} else {
				script.Threads = []scripted.Thread{{Match: "AGENT-HOOK-CHECK", Steps: []scripted.Step{
					scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "policy.txt"})),
					scripted.TextStep(verdict),
				}}}
			}
			x := newE2E(t, script)
			x.WriteFile("policy.txt", "POLICY-TEXT: no new files\n")
			userHooks(t, x, map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
				map[string]any{"type": typ, "prompt": "AGENT-HOOK-CHECK: may this run? $ARGUMENTS"}}}}})
			r := x.RunDetached(streamArgs("make a file", "--permission-mode", "trust")...)
			if fileExists(filepath.Join(x.Work, "made.txt")) {
				t.Fatal("the denied call ran")
			}
			if d, ok := deniedIDs(r)["b1"]; !ok || !strings.Contains(d.Reason, reason) {
				t.Errorf("denials %v, want b1 denied with %q\n%s", r.Result().PermissionDenials, reason, r.Stderr)
			}
			if n := len(x.srv.MainRequests()); typ == "prompt" && n != 1 {
				t.Errorf("the model was called %d times for the turn, want 1", n)
			}
			var asked, read bool
			for _, req := range x.srv.Requests() {
				b := string(req.RawBody)
				asked = asked || strings.Contains(b, `AGENT-HOOK-CHECK: may this run? {`) && strings.Contains(b, `touch made.txt`)
				read = read || strings.Contains(b, "POLICY-TEXT")
			}
			if !asked || (typ == "agent" && !read) {
				t.Errorf("hook model asked %v, agent read the file %v", asked, read)
			}
		})
	}
}

// The terminal UI's /clear ends the session with reason clear, and ctrl+d
// with prompt_input_exit.
func TestFeatureHooksSessionEndReasonsTUI(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.Env = append(x.Env, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=30000")
	inputs := filepath.Join(t.TempDir(), "inputs.jsonl")
	userHooks(t, x, map[string]any{"SessionEnd": []any{cmdHook("", "cat >> "+inputs+"; echo >> "+inputs)}})
	p := x.startTUI(100, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Ask tandem")
	p.typeText("/clear")
	p.keys("Enter")
	p.waitFor("the SessionEnd of /clear", func(string) bool { return len(hookInputs(t, inputs)) == 1 })
	p.waitText("Ask tandem")
	p.keys("C-d")
	p.waitText("TANDEM-EXITED:0")
	var reasons []string
	for _, in := range hookInputs(t, inputs) {
		reasons = append(reasons, mustJSON(in["reason"]))
	}
	if strings.Join(reasons, " ") != `"clear" "prompt_input_exit"` {
		t.Errorf("SessionEnd reasons %v, want clear then prompt_input_exit", reasons)
	}
}
