package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// The MCP endpoints reach the session's real MCP manager: a user-config
// server is listed, can be disabled, and bad actions or servers are 400.
func TestMCPEndpoints(t *testing.T) {
	e := newEnv(t, scripted.Script{}, withEverything(t))
	id := e.newSession()
	var got struct {
		Servers []map[string]any `json:"servers"`
		Prompts []map[string]any `json:"prompts"`
	}
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, &got)
	if len(got.Servers) != 1 || got.Servers[0]["name"] != "ev" || got.Prompts == nil {
		t.Fatalf("status: %+v", got)
	}
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/ev", map[string]string{"action": "disable"}, 200, nil)
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/ev", map[string]string{"action": "explode"}, 400, nil)
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/nope", map[string]string{"action": "enable"}, 400, nil)
	e.mustDo("GET", "/api/sessions/ses_unknown0000/mcp", nil, 404, nil)
}

// A session without MCP servers lists none, and actions name the problem.
func TestMCPEndpointsWithoutServers(t *testing.T) {
	e := newEnv(t, scripted.Script{})
	id := e.newSession()
	var got struct {
		Servers []map[string]any `json:"servers"`
		Prompts []map[string]any `json:"prompts"`
	}
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, &got)
	if got.Servers == nil || len(got.Servers) != 0 || got.Prompts == nil || len(got.Prompts) != 0 {
		t.Fatalf("status: %+v", got)
	}
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/ev", map[string]string{"action": "enable"}, 400, nil)
}

// withEverything gives the stack's user config the real
// mcp-server-everything from testdeps as server "ev" (skipping the test
// when it is not installed).
func withEverything(t *testing.T) func(*server.Options, *servertest.Config) {
	t.Helper()
	bin, err := filepath.Abs("../../testdeps/node_modules/.bin/mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("MCP test server not installed (run `cd testdeps && npm ci`): %v", err)
	}
	return func(_ *server.Options, c *servertest.Config) {
		c.UserConfig = map[string]any{"mcpServers": map[string]any{"ev": map[string]any{"command": bin}}}
	}
}
