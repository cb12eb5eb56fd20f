package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// countingServer is an MCP server entry that appends a line to count each
// time it starts, then runs the everything server.
func countingServer(t *testing.T, count string, extra map[string]any) map[string]any {
	bin := testdepBin(t, "mcp-server-everything")
	e := map[string]any{"command": "sh", "args": []string{"-c", `echo start >> "$0"; exec "$1"`, count, bin}}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func starts(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "start\n")
}

// Under --runtime claude-code the CLI runs the session's MCP servers: each
// starts once (tandem does not start its own copy), and a server's
// disabled_tools are not offered to the model.
func TestE2EClaudeCodeMCPStartsOnceAndHonoursDisabledTools(t *testing.T) {
	t.Parallel()
	x := newClaudeCodeE2E(t, func(string) scripted.Script { return echoScript() })
	count := filepath.Join(t.TempDir(), "starts")
	cli := testdepBin(t, "claude")
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"claude_code": map[string]any{"path": cli, "first_byte_timeout": "30s", "turn_timeout": "90s"},
		"mcpServers": map[string]any{"everything": countingServer(t, count, map[string]any{
			"disabled_tools": []string{"get-sum", "add"}})}})
	r := x.RunDetached(streamArgs("echo", "--runtime", "claude-code")...)
	checkEchoReachedModel(t, x, r)
	if n := starts(t, count); n != 1 {
		t.Errorf("the MCP server started %d times, want once (by the CLI)", n)
	}
	first := string(x.srv.MainRequests()[0].RawBody)
	if strings.Contains(first, `"mcp__everything__get-sum"`) || strings.Contains(first, `"mcp__everything__add"`) {
		t.Error("a disabled_tools tool was offered to the model")
	}
	if !strings.Contains(first, `"mcp__everything__get-env"`) && !strings.Contains(first, `"mcp__everything__printEnv"`) {
		t.Error("the server's other tools were not offered")
	}
}

// Disabling a server through tandem's API between claude-code turns keeps
// the next turn's CLI from starting it or offering its tools, and the
// session's MCP status says so.
func TestE2EClaudeCodeMCPDisableAppliesToNextTurn(t *testing.T) {
	t.Parallel()
	x := newClaudeCodeE2E(t, func(string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("echo1", "mcp__everything__echo", map[string]any{"message": "one"})),
			scripted.TextStep("first done"),
			scripted.ToolStep(scripted.CallID("echo2", "mcp__everything__echo", map[string]any{"message": "two"})),
			scripted.TextStep("second done"),
		}}
	})
	count := filepath.Join(t.TempDir(), "starts")
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"claude_code": map[string]any{"path": testdepBin(t, "claude"), "first_byte_timeout": "30s", "turn_timeout": "90s"},
		"mcpServers":  map[string]any{"everything": countingServer(t, count, nil)}})
	srv := startServe(t, x, "--permission-mode", "trust")
	call := srv.call
	id := fmt.Sprint(call("POST", "/api/sessions", map[string]string{"cwd": x.Work, "mode": "trust", "runtime": "claude-code"})["id"])
	turn := func(prompt string, n int) {
		t.Helper()
		call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": prompt})
		waitFor(t, "the turn to end", 60*time.Second, func() bool {
			return call("GET", "/api/sessions/"+id, nil)["status"] == "idle" && len(x.srv.MainRequests()) >= n
		})
	}
	turn("echo one", 2)
	if n := starts(t, count); n != 1 {
		t.Fatalf("the server started %d times in the first turn, want once", n)
	}
	out := call("POST", "/api/sessions/"+id+"/mcp/everything", map[string]string{"action": "disable"})
	if s, _ := json.Marshal(out); !strings.Contains(string(s), `"state":"disabled"`) {
		t.Errorf("status after disable: %s", s)
	}
	turn("echo two", 4)
	if n := starts(t, count); n != 1 {
		t.Errorf("the server started %d times in all, want once: the disabled server started again", n)
	}
	reqs := x.srv.MainRequests()
	if !offers(t, reqs[0].RawBody, "mcp__everything__echo") {
		t.Error("the first turn did not offer the server's tools")
	}
	// (The CLI keeps offering a tool its resumed history used, as a stub
	// that fails when called.)
	if !strings.Contains(string(reqs[len(reqs)-1].RawBody), "No such tool available") {
		t.Error("the second turn's echo call did not fail as a call of an absent tool")
	}
}

// offers reports whether a messages request body offers the tool name.
func offers(t *testing.T, body []byte, name string) bool {
	t.Helper()
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, tl := range req.Tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}
