package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A can_use_tool answer's updatedInput is judged again before it runs: a
// command rewritten past a --disallowedTools deny is denied naming why,
// and a Write moved outside the workspace is asked about as itself (the
// host refuses that second question, so nothing is written outside).
func TestClaudeProtocolRewrittenInputIsJudgedAgain(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "touch made.txt"})),
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "WORK/n.txt", "content": "new\n"})),
		scripted.TextStep("ok"),
	}})
	x.WriteFile("victim/keep.txt", "keep\n")
	p := startPeer(t, x, append(pythonSDKArgs, "--disallowedTools", "Bash(rm:*)")...)
	p.send(map[string]any{"type": "control_request", "request_id": "init1", "request": map[string]any{"subtype": "initialize"}})
	p.next("initialize answer", isType("control_response", "init1"))
	p.send(map[string]any{"type": "user", "session_id": "default", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go"}}}})

	answer := func(ask map[string]any, resp map[string]any) {
		p.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": ask["request_id"], "response": resp}})
	}
	ask := p.next("can_use_tool for Bash", isType("control_request", "can_use_tool"))
	answer(ask, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "rm -rf victim"}})

	ask = p.next("can_use_tool for Write", isType("control_request", "can_use_tool"))
	if r := ask["request"].(map[string]any); r["tool_name"] != "Write" {
		t.Fatalf("second question: %v", r)
	}
	answer(ask, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"file_path": outside, "content": "moved\n"}})
	again := p.next("can_use_tool for the moved Write", isType("control_request", "can_use_tool"))
	if in, _ := again["request"].(map[string]any)["input"].(map[string]any); in["file_path"] != outside {
		t.Errorf("the moved Write was not asked about as itself: %v", again["request"])
	}
	answer(again, map[string]any{"behavior": "deny", "message": "not there"})

	res := p.next("result", isType("result", ""))
	if _, err := os.Stat(filepath.Join(x.Work, "victim", "keep.txt")); err != nil {
		t.Errorf("the rewritten rm ran: %v", err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("the Write moved outside the workspace ran: %v", err)
	}
	denials, _ := res["permission_denials"].([]any)
	if len(denials) != 2 {
		t.Fatalf("permission_denials: %v", res["permission_denials"])
	}
	reqs := x.srv.MainRequests()
	if body := string(reqs[1].RawBody); !strings.Contains(body, "updatedInput") || !strings.Contains(body, "Bash(rm:*)") {
		t.Errorf("the denial does not name why:\n%.3000s", body)
	}
	p.in.Close()
	_ = p.cmd.Wait()
}
