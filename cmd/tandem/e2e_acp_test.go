package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// acpLog is what testdata/acp/client.mjs reports.
type acpLog struct {
	Updates []map[string]any `json:"updates"`
	Asks    []struct {
		Title   string
		Options []string
		Content string
	} `json:"asks"`
	Responses map[string]json.RawMessage `json:"responses"`
	Errors    []string                   `json:"errors"`
	Reads     []string                   `json:"reads"`
	Writes    []struct {
		Path, Content string
	} `json:"writes"`
	Terminal []struct {
		Method     string
		TerminalID string `json:"terminalId"`
		Command    string
		Args       []string
		Cwd        string
		Env        []struct{ Name, Value string }
	} `json:"terminal"`
}

func (l acpLog) response(t *testing.T, name string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(l.Responses[name], &m); err != nil {
		t.Fatalf("response %s: %v (%s)", name, err, l.Responses[name])
	}
	return m
}

// updates returns the updates of one kind (sessionUpdate).
func (l acpLog) updates(kind string) []map[string]any {
	var out []map[string]any
	for _, u := range l.Updates {
		if u["sessionUpdate"] == kind {
			out = append(out, u)
		}
	}
	return out
}

// runACPClient runs the official ACP client library against `tandem acp`.
func runACPClient(t *testing.T, x *e2e, env ...string) acpLog {
	t.Helper()
	needProgram(t, "node")
	sdk, err := filepath.Abs("../../testdeps/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Skip("the ACP client library is not installed: run `npm ci` in testdeps/")
	}
	script, _ := filepath.Abs("testdata/acp/client.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = x.Work
	// The client starts tandem itself, with the test's environment.
	cmd.Env = append(x.Command(ctx).Env, "ACP_SDK="+sdk, "TANDEM_BIN="+x.Binary, "WORK="+x.Work)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var l acpLog
	if err := json.Unmarshal(bytes.TrimSpace(lastLine(stdout.Bytes())), &l); err != nil {
		t.Fatalf("client output: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if runErr != nil || len(l.Errors) > 0 {
		t.Fatalf("client failed: %v %v\nstderr:\n%s", runErr, l.Errors, stderr.String())
	}
	return l
}

func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// An editor drives tandem over ACP with the official client library: a
// prompt that edits a file (streamed tool calls with a diff), a command
// the user rejects, a long command cancelled mid-run, then a second
// process loads the session and sees the conversation replayed.
func TestACPEditorSession(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("read1", "Read", map[string]any{"file_path": "greet.txt"})),
		scripted.ToolStep(scripted.CallID("edit1", "Edit", map[string]any{"file_path": "greet.txt", "old_string": "wrld", "new_string": "world"})),
		scripted.TextStep("Fixed the greeting."),
		scripted.ToolStep(scripted.CallID("rm1", "Bash", map[string]any{"command": "rm -rf build"})),
		scripted.TextStep("Left the build folder alone."),
		scripted.ToolStep(scripted.CallID("sleep1", "Bash", map[string]any{"command": "sleep 300"})),
		scripted.TextStep("unreachable"),
	}})
	x.WriteFile("greet.txt", "hello wrld\n")
	x.WriteFile("build/out.o", "binary")

	mcpBin := testdepBin(t, "mcp-server-everything")
	l := runACPClient(t, x, "SCENARIO=edit-deny-cancel", "MCP_BIN="+mcpBin)

	var offered []string
	for _, u := range l.updates("available_commands_update") {
		for _, c := range u["availableCommands"].([]any) {
			offered = append(offered, c.(map[string]any)["name"].(string))
		}
	}
	if !slices.Contains(offered, "compact") || !slices.Contains(offered, "init") {
		t.Errorf("commands offered %v: /compact and /init are missing", offered)
	}
	init := l.response(t, "initialize")
	if init["protocolVersion"] != float64(1) {
		t.Errorf("protocolVersion = %v, want 1", init["protocolVersion"])
	}
	if caps, _ := init["agentCapabilities"].(map[string]any); caps["loadSession"] != true {
		t.Errorf("agentCapabilities = %v, want loadSession", caps)
	}
	if got := x.ReadFile("greet.txt"); got != "hello world\n" {
		t.Errorf("greet.txt = %q, want the edit applied", got)
	}
	if r := l.response(t, "edit"); r["stopReason"] != "end_turn" {
		t.Errorf("edit prompt: %v", r)
	}
	var sawEditCall, sawDiff bool
	for _, u := range l.updates("tool_call") {
		if u["toolCallId"] == "edit1" && u["kind"] == "edit" {
			sawEditCall = true
		}
	}
	for _, u := range l.updates("tool_call_update") {
		if u["toolCallId"] != "edit1" || u["status"] != "completed" {
			continue
		}
		content, _ := u["content"].([]any)
		for _, c := range content {
			if m, _ := c.(map[string]any); m["type"] == "diff" && m["newText"] == "world" && m["oldText"] == "wrld" && strings.HasSuffix(m["path"].(string), "greet.txt") {
				sawDiff = true
			}
		}
	}
	if !sawEditCall || !sawDiff {
		t.Errorf("edit tool call %v, diff %v; updates: %v", sawEditCall, sawDiff, l.updates("tool_call_update"))
	}
	var text strings.Builder
	for _, u := range l.updates("agent_message_chunk") {
		c, _ := u["content"].(map[string]any)
		text.WriteString(c["text"].(string))
	}
	if !strings.Contains(text.String(), "Fixed the greeting.") || !strings.Contains(text.String(), "Left the build folder alone.") {
		t.Errorf("agent text = %q", text.String())
	}

	// The client's MCP server runs without an approval step and its tools
	// are offered from the first request.
	if !strings.Contains(string(x.srv.MainRequests()[0].RawBody), "mcp__everything__echo") {
		t.Error("the MCP server the client brought was not offered to the model")
	}

	// The rejected command was asked about, offered the three answers, and
	// never ran.
	asked := false
	for _, a := range l.Asks {
		if strings.Contains(a.Title, "rm -rf build") {
			asked = true
			if strings.Join(a.Options, ",") != "allow_once,allow_always,reject" && strings.Join(a.Options, ",") != "allow_once,reject" {
				t.Errorf("options = %v", a.Options)
			}
		}
	}
	if !asked {
		t.Errorf("rm -rf was not asked about: %+v", l.Asks)
	}
	if x.ReadFile("build/out.o") == "" {
		t.Error("the rejected rm -rf ran")
	}
	for _, u := range l.updates("tool_call_update") {
		if u["toolCallId"] == "rm1" && u["status"] != "failed" {
			t.Errorf("rejected call update = %v, want failed", u)
		}
	}

	// Cancel stops the running command and the turn.
	if r := l.response(t, "cancel"); r["stopReason"] != "cancelled" {
		t.Errorf("cancelled prompt = %v", r)
	}
	var ms float64
	_ = json.Unmarshal(l.Responses["cancelMillis"], &ms)
	if ms > 30000 { // the command sleeps 300 s
		t.Errorf("cancel took %.0f ms: the sleep was not stopped", ms)
	}

	// A second editor process loads the session: the conversation comes
	// back as updates, and the mode can be switched.
	sid, _ := l.response(t, "new")["sessionId"].(string)
	if !strings.HasPrefix(sid, "ses_") {
		t.Fatalf("sessionId = %q", sid)
	}
	l2 := runACPClient(t, x, "SCENARIO=load", "SESSION_ID="+sid)
	var listed bool
	for _, s := range l2.response(t, "list")["sessions"].([]any) {
		if s.(map[string]any)["sessionId"] == sid {
			listed = true
		}
	}
	if !listed {
		t.Errorf("session/list does not list %s: %s", sid, l2.Responses["list"])
	}
	var user, agentText strings.Builder
	for _, u := range l2.updates("user_message_chunk") {
		user.WriteString(u["content"].(map[string]any)["text"].(string) + "|")
	}
	for _, u := range l2.updates("agent_message_chunk") {
		agentText.WriteString(u["content"].(map[string]any)["text"].(string))
	}
	if !strings.Contains(user.String(), "fix the greeting|") || !strings.Contains(user.String(), "wait a while|") {
		t.Errorf("replayed user messages = %q", user.String())
	}
	if !strings.Contains(agentText.String(), "Fixed the greeting.") {
		t.Errorf("replayed agent text = %q", agentText.String())
	}
	if len(l2.updates("tool_call")) < 4 {
		t.Errorf("replayed tool calls = %v", l2.updates("tool_call"))
	}
	modes := l2.response(t, "load")["modes"].(map[string]any)
	if modes["currentModeId"] != "normal" {
		t.Errorf("load modes = %v", modes)
	}
	if u := l2.updates("current_mode_update"); len(u) == 0 || u[len(u)-1]["currentModeId"] != "explore" {
		t.Errorf("mode updates = %v", u)
	}
}

// An editor loading a session whose turn ran a sub-agent sees the child's
// tool calls replayed after the Agent call that started them, as it saw
// them live (the child's words come as the call's result).
func TestACPLoadReplaysSubagentCalls(t *testing.T) {
	t.Parallel()
	x := newE2E(t, delegateScript("look around", "CHILD-TASK: list files", "CHILD-TASK", "Parent done.",
		scripted.ToolStep(scripted.CallID("g1", "Glob", map[string]any{"pattern": "*"})),
		scripted.TextStep("CHILD-REPORT nothing here"),
	))
	r := x.RunStream("look around")
	mustSucceed(t, r)
	l := runACPClient(t, x, "SCENARIO=load", "SESSION_ID="+r.Result().SessionID)
	var calls []string
	for _, u := range l.Updates {
		if u["sessionUpdate"] == "tool_call" {
			calls = append(calls, fmt.Sprint(u["toolCallId"]))
		}
	}
	if strings.Join(calls, " ") != "a1 g1" {
		t.Errorf("replayed tool calls %v, want the Agent call then its sub-agent's Glob", calls)
	}
	var said strings.Builder
	for _, u := range l.updates("agent_message_chunk") {
		said.WriteString(u["content"].(map[string]any)["text"].(string) + "|")
	}
	if said.String() != "Parent done.|" {
		t.Errorf("replayed agent text %q: the sub-agent's words are not the agent's message", said.String())
	}
	for _, u := range l.updates("user_message_chunk") {
		if text := u["content"].(map[string]any)["text"]; text != "look around" {
			t.Errorf("replayed user message %q", text)
		}
	}
}
