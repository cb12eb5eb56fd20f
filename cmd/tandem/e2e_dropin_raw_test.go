package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// pythonSDKArgs is the command line the Python Claude Agent SDK builds for
// a query with canUseTool and no system prompt of its own.
var pythonSDKArgs = []string{"--output-format", "stream-json", "--verbose", "--system-prompt", "", "--permission-prompt-tool", "stdio",
	"--permission-mode", "default", "--setting-sources", "", "--input-format", "stream-json"}

// protoPeer speaks the control protocol to a tandem process by hand, as
// the Python SDK does (it cannot be installed here: its registry is not
// reachable).
type protoPeer struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
}

func startPeer(t *testing.T, x *e2e, args ...string) *protoPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd, in, out, stderr := x.startPiped(ctx, args...)
	p := &protoPeer{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 256)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			p.lines <- m
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("tandem stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *protoPeer) send(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next line for which keep is true, answering nothing.
func (p *protoPeer) next(what string, keep func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("stdout closed while waiting for %s", what)
			}
			if keep(m) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func isType(typ, sub string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		if m["type"] != typ {
			return false
		}
		if sub == "" {
			return true
		}
		if r, ok := m["request"].(map[string]any); ok {
			return r["subtype"] == sub
		}
		if r, ok := m["response"].(map[string]any); ok {
			return r["request_id"] == sub
		}
		return m["subtype"] == sub
	}
}

// What the Python SDK does that the TypeScript one does not: no
// subcommand and --system-prompt "", an initialize answered at once, a
// user message whose session_id is "default", and a result that carries
// is_error and duration_api_ms. The exchange mirrors the one recorded from
// the real CLI (shared fixtures, sdk-control-exchange.json): a PreToolUse
// hook callback, then can_use_tool, then the result.
func TestClaudeProtocolPythonSDKExchange(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.serve(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "WORK/n.txt", "content": "new\n"})),
		scripted.TextStep("ok"),
	}})
	p := startPeer(t, x, pythonSDKArgs...)

	start := time.Now()
	p.send(map[string]any{"type": "control_request", "request_id": "init1", "request": map[string]any{"subtype": "initialize",
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Write", "hookCallbackIds": []string{"hook_0"}}}}}})
	init := p.next("initialize answer", isType("control_response", "init1"))
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("initialize took %v; the Python SDK waits 60 s at most", d)
	}
	if r := init["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("initialize: %v", init)
	}
	p.send(map[string]any{"type": "control_request", "request_id": "pm1", "request": map[string]any{"subtype": "set_permission_mode", "mode": "acceptEdits"}})
	if r := p.next("set_permission_mode", isType("control_response", "pm1"))["response"].(map[string]any); r["response"].(map[string]any)["mode"] != "acceptEdits" {
		t.Errorf("set_permission_mode: %v", r)
	}
	p.send(map[string]any{"type": "control_request", "request_id": "pm2", "request": map[string]any{"subtype": "set_permission_mode", "mode": "default"}})
	p.next("set_permission_mode", isType("control_response", "pm2"))
	p.send(map[string]any{"type": "control_request", "request_id": "bogus", "request": map[string]any{"subtype": "no_such_request"}})
	if r := p.next("error answer", isType("control_response", "bogus"))["response"].(map[string]any); r["subtype"] != "error" || !strings.Contains(r["error"].(string), "no_such_request") {
		t.Errorf("unknown subtype answer: %v", r)
	}
	p.send(map[string]any{"type": "user", "session_id": "default", "parent_tool_use_id": nil, "uuid": "u-1",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "write n.txt"}}}})

	initMsg := p.next("system/init", isType("system", "init"))
	if initMsg["permissionMode"] != "default" || initMsg["claude_code_version"] == nil {
		t.Errorf("system/init: %v", initMsg)
	}
	hook := p.next("hook_callback", isType("control_request", "hook_callback"))
	hreq := hook["request"].(map[string]any)
	if hreq["callback_id"] != "hook_0" || hreq["input"].(map[string]any)["tool_name"] != "Write" || hreq["input"].(map[string]any)["hook_event_name"] != "PreToolUse" {
		t.Errorf("hook_callback: %v", hreq)
	}
	p.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": hook["request_id"], "response": map[string]any{}}})
	ask := p.next("can_use_tool", isType("control_request", "can_use_tool"))
	areq := ask["request"].(map[string]any)
	if areq["tool_name"] != "Write" || areq["tool_use_id"] != "w1" {
		t.Errorf("can_use_tool: %v", areq)
	}
	// The host rewrites the input: the rewritten content is what lands.
	p.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": ask["request_id"],
		"response": map[string]any{"behavior": "allow", "updatedInput": map[string]any{"file_path": x.Work + "/n.txt", "content": "rewritten\n"}}}})
	user := p.next("tool result", isType("user", ""))
	if c := user["message"].(map[string]any)["content"].([]any)[0].(map[string]any); c["type"] != "tool_result" || c["tool_use_id"] != "w1" {
		t.Errorf("user line: %v", user)
	}
	res := p.next("result", isType("result", ""))
	for _, k := range []string{"is_error", "duration_api_ms", "duration_ms", "num_turns", "session_id", "total_cost_usd", "usage", "modelUsage", "permission_denials", "uuid"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %s: %v", k, res)
		}
	}
	if res["subtype"] != "success" || res["result"] != "ok" {
		t.Errorf("result: %v", res)
	}
	if got := x.ReadFile("n.txt"); got != "rewritten\n" {
		t.Errorf("n.txt = %q: the host's updatedInput was not applied", got)
	}
	// rewind_files puts the files back as they were before that message.
	p.send(map[string]any{"type": "control_request", "request_id": "rw1", "request": map[string]any{"subtype": "rewind_files", "user_message_id": "u-1"}})
	if r := p.next("rewind_files", isType("control_response", "rw1"))["response"].(map[string]any); r["subtype"] != "success" {
		t.Errorf("rewind_files: %v", r)
	}
	if _, err := os.Stat(filepath.Join(x.Work, "n.txt")); !os.IsNotExist(err) {
		t.Errorf("n.txt still exists after rewind_files: %v", err)
	}
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("tandem did not exit cleanly when stdin closed: %v", err)
	}
}

// Without the control protocol: -p with text, json and stream-json output,
// a flag tandem does not know (reported, not fatal), and -v.
func TestClaudeProtocolPrintMode(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello there")}})
	r := x.Run("-p", "say hello", "--some-future-flag", "--permission-mode", "bypassPermissions")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "hello there" || !strings.Contains(r.Stderr, "--some-future-flag") {
		t.Errorf("text: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	r = x.Run("-p", "say hello", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &res); err != nil || res["type"] != "result" || res["result"] != "hello there" || res["is_error"] != false {
		t.Errorf("json: %v %q", err, r.Stdout)
	}
	r = x.Run("-p", "say hello", "--output-format", "stream-json", "--verbose", "--include-partial-messages")
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stream-json line %q: %v", l, err)
		}
		types = append(types, m["type"].(string))
	}
	got := strings.Join(types, ",")
	if !strings.HasPrefix(got, "system,stream_event") || !strings.HasSuffix(got, "stream_event,assistant,result") {
		t.Errorf("stream-json types: %s", got)
	}
	v := x.Run("-v")
	if v.Code != 0 || !strings.HasPrefix(v.Stdout, "2.") {
		t.Errorf("-v: %q", v.Stdout)
	}
	// A bad model fails before any turn, with a result line that says why.
	r = x.Run("-p", "hi", "--output-format", "stream-json", "--verbose", "--model", "nosuch/model-x")
	if r.Code == 0 || !strings.Contains(r.Stdout, `"is_error":true`) {
		t.Errorf("bad model: exit %d stdout %q", r.Code, r.Stdout)
	}
}
