package tandem_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// testdepBin is an npm program from testdeps (skips when it or node is
// not installed).
func testdepBin(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	p, err := filepath.Abs(filepath.Join("testdeps", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed: run `cd testdeps && npm ci` to run this test", name)
	}
	return p
}

func TestMCPServerGivenInCode(t *testing.T) {
	bin := testdepBin(t, "mcp-server-everything")
	st := newStack(t,
		scripted.ToolStep(scripted.CallID("e1", "mcp__everything__echo", map[string]any{"message": "ping"})),
		scripted.TextStep("The server answered."))
	// The engine's server is replaced by the session's of the same name:
	// the engine's would fail to start.
	// A generous wait: a node server may take seconds to start on a busy
	// machine, and its tools must be there for the first request.
	eng := st.open(tandem.Options{MCPWait: 60 * time.Second, MCPServers: []tandem.MCPServer{{Name: "everything", Command: filepath.Join(st.Work, "missing")}}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add,
		MCPServers: []tandem.MCPServer{{Name: "everything", Command: bin}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "echo ping", nil)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	rs := rec.ofType(tandem.EventToolResult)
	if len(rs) != 1 || rs[0].IsError || rs[0].Output != "Echo: ping" {
		t.Fatalf("tool results: %+v", rs)
	}
	if !st.requestHas(0, `"mcp__everything__echo"`) || !st.requestHas(1, "Echo: ping") {
		t.Error("the MCP tool was not offered, or its result did not reach the model")
	}
	connected := false
	for _, e := range rec.ofType(tandem.EventStatus) {
		if e.Meta["mcp_server"] == "everything" && e.Meta["mcp_status"] == "connected" {
			connected = true
		}
	}
	if !connected {
		t.Error("no status event says the server connected")
	}
}
