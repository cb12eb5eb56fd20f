package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// everythingConfig is --mcp-config JSON for the everything MCP server.
func everythingConfig(t *testing.T) []byte {
	t.Helper()
	bin, err := filepath.Abs("../../testdeps/node_modules/.bin/mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	if !fileExists(bin) {
		t.Skipf("%s is not installed (run `cd testdeps && npm ci`)", bin)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"type": "stdio", "command": bin, "args": []string{}}}})
	return b
}

// A server disabled while a turn runs is disconnected by the CLI at once
// (mcp_toggle): the call being decided fails, and so does a later call of
// its tools, which never reaches tandem's Checker. The read-only echo
// reached the Checker as read-only (hint from the CLI's mcp_status).
func TestRealCLIMCPToggleMidTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.opts.MCPConfig = everythingConfig(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("echo1", "mcp__everything__echo", map[string]any{"message": "hi"})),
		scripted.ToolStep(scripted.CallID("echo2", "mcp__everything__echo", map[string]any{"message": "again"})),
		scripted.TextStep("done"),
	}})
	rt := New(h.cfg, h.opts)
	var toggleErr, reconnectErr error
	var asked []permission.Request
	checker := checkerFunc(func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		asked = append(asked, r)
		if len(asked) == 1 {
			reconnectErr = rt.MCPReconnect(ctx, r.SessionID, "everything")
			toggleErr = rt.MCPToggle(ctx, r.SessionID, "everything", false)
		}
		return permission.Decision{Behavior: permission.Allow}, nil
	})
	res := h.run(context.Background(), rt, h.input("echo"), checker)
	if res.Subtype != event.SubtypeSuccess || toggleErr != nil || reconnectErr != nil {
		t.Fatalf("result %+v, mcp_toggle: %v, mcp_reconnect: %v", res, toggleErr, reconnectErr)
	}
	if len(asked) != 1 || !asked[0].ReadOnly {
		t.Errorf("checker asked %+v, want one read-only echo call", asked)
	}
	results := map[string]event.Event{}
	for _, e := range h.events.All() {
		if e.Type == event.ToolResult {
			results[e.ToolUseID] = e
		}
	}
	for _, id := range []string{"echo1", "echo2"} {
		if r := results[id]; !r.IsError || !strings.Contains(r.Output, "disabled") {
			t.Errorf("%s ran on a disabled server: %+v", id, r)
		}
	}
	if got := rt.MCPServers("sess-test"); len(got) != 1 || got[0].Name != "everything" {
		t.Errorf("MCP servers seen: %+v", got)
	}
	if err := rt.MCPToggle(context.Background(), "sess-test", "everything", true); !errors.Is(err, ErrNoTurn) {
		t.Errorf("toggle with no turn running: %v, want ErrNoTurn", err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
