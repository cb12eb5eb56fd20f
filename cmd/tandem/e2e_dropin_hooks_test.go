package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// answerHook waits for the next hook_callback, checks its event and
// answers it with response.
func (p *protoPeer) answerHook(event string, response map[string]any) map[string]any {
	p.t.Helper()
	m := p.next(event+" hook_callback", isType("control_request", "hook_callback"))
	req := m["request"].(map[string]any)
	in, _ := req["input"].(map[string]any)
	if in["hook_event_name"] != event {
		p.t.Fatalf("hook_callback for %v, want %s: %v", in["hook_event_name"], event, req)
	}
	p.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": m["request_id"], "response": response}})
	return req
}

func userMessage(text string) map[string]any {
	return map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": text}}
}

// The host's hooks for events other than PreToolUse are called back where
// tandem fires its own hooks, and their answers are applied: UserPromptSubmit
// and PostToolUse context reaches the model, a Stop hook's block keeps the
// turn going with its reason. set_max_thinking_tokens changes the thinking
// budget of the requests that follow; null turns thinking off.
func TestClaudeProtocolHookCallbacksAndThinking(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.serve(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "WORK/n.txt", "content": "new\n"})),
		scripted.TextStep("done"),
		scripted.TextStep("tests pass"),
		scripted.TextStep("thought about it"),
		scripted.TextStep("answered plainly"),
	}})
	p := startPeer(t, x, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-mode", "bypassPermissions")
	p.send(map[string]any{"type": "control_request", "request_id": "init1", "request": map[string]any{"subtype": "initialize",
		"hooks": map[string]any{
			"UserPromptSubmit": []any{map[string]any{"hookCallbackIds": []string{"hook_prompt"}}},
			"PostToolUse":      []any{map[string]any{"matcher": "Write|Edit", "hookCallbackIds": []string{"hook_post"}}},
			"Stop":             []any{map[string]any{"hookCallbackIds": []string{"hook_stop"}}},
		}}})
	if r := p.next("initialize answer", isType("control_response", "init1"))["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("initialize: %v", r)
	}
	p.send(userMessage("write n.txt"))

	req := p.answerHook("UserPromptSubmit", map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "UserPromptSubmit", "additionalContext": "PROMPT-CONTEXT-7"}})
	if in := req["input"].(map[string]any); req["callback_id"] != "hook_prompt" || in["prompt"] != "write n.txt" ||
		!strings.HasPrefix(in["session_id"].(string), "ses_") || in["permission_mode"] != "bypassPermissions" {
		t.Errorf("UserPromptSubmit callback: %v", req)
	}
	req = p.answerHook("PostToolUse", map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PostToolUse", "additionalContext": "POST-CONTEXT-9"}})
	if in := req["input"].(map[string]any); req["callback_id"] != "hook_post" || req["tool_use_id"] != "w1" ||
		in["tool_name"] != "Write" || in["tool_response"] == nil {
		t.Errorf("PostToolUse callback: %v", req)
	}
	req = p.answerHook("Stop", map[string]any{"decision": "block", "reason": "STOP-REASON-3"})
	if in := req["input"].(map[string]any); in["stop_hook_active"] == true || in["last_assistant_message"] != "done" {
		t.Errorf("first Stop callback: %v", req)
	}
	req = p.answerHook("Stop", map[string]any{})
	if in := req["input"].(map[string]any); in["stop_hook_active"] != true {
		t.Errorf("second Stop callback: %v", req)
	}
	if res := p.next("result", isType("result", "")); res["subtype"] != "success" || res["result"] != "tests pass" {
		t.Fatalf("result: %v", res)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, "PROMPT-CONTEXT-7") || !strings.Contains(body, "POST-CONTEXT-9") {
		t.Errorf("the hooks' context did not reach the model:\n%.3000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "STOP-REASON-3") {
		t.Errorf("the Stop hook's reason did not reach the model:\n%.3000s", body)
	}
	if x.ReadFile("n.txt") != "new\n" {
		t.Errorf("n.txt = %q", x.ReadFile("n.txt"))
	}

	// The next turn thinks with the budget the host set.
	p.send(map[string]any{"type": "control_request", "request_id": "think1", "request": map[string]any{
		"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 4096}})
	if r := p.next("set_max_thinking_tokens", isType("control_response", "think1"))["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("set_max_thinking_tokens: %v", r)
	}
	p.send(userMessage("think about it"))
	p.answerHook("UserPromptSubmit", map[string]any{})
	p.answerHook("Stop", map[string]any{})
	p.next("result", isType("result", ""))
	reqs = x.srv.MainRequests()
	// The default model (claude-sonnet-5-5) thinks adaptively and takes no
	// budget: a budget turns its adaptive thinking on.
	if body := string(reqs[len(reqs)-1].RawBody); !strings.Contains(body, `"type":"adaptive"`) {
		t.Errorf("the request after set_max_thinking_tokens 4096 does not think:\n%.3000s", body)
	}
	p.send(map[string]any{"type": "control_request", "request_id": "think2", "request": map[string]any{
		"subtype": "set_max_thinking_tokens", "max_thinking_tokens": nil}})
	p.next("set_max_thinking_tokens", isType("control_response", "think2"))
	p.send(userMessage("answer plainly"))
	p.answerHook("UserPromptSubmit", map[string]any{})
	p.answerHook("Stop", map[string]any{})
	p.next("result", isType("result", ""))
	reqs = x.srv.MainRequests()
	if body := string(reqs[len(reqs)-1].RawBody); strings.Contains(body, `"type":"adaptive"`) || strings.Contains(body, `"budget_tokens"`) {
		t.Errorf("thinking is still on after set_max_thinking_tokens null:\n%.3000s", body)
	}
}
