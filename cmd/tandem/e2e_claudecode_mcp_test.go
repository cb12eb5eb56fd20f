package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
