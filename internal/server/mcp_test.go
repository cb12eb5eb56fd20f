package server_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/session"
)

type fakeMCP struct {
	mu      sync.Mutex
	actions []string
}

func (f *fakeMCP) MCPStatus(l *session.Live) (any, any) {
	return []map[string]any{{"name": "ev", "state": "connected", "session": l.Snapshot().ID}},
		[]map[string]any{{"server": "ev", "name": "greet"}}
}

func (f *fakeMCP) MCPAction(_ *session.Live, srv, action string) error {
	if srv != "ev" {
		return fmt.Errorf("no MCP server %q", srv)
	}
	f.mu.Lock()
	f.actions = append(f.actions, action)
	f.mu.Unlock()
	return nil
}

func TestMCPEndpoints(t *testing.T) {
	f := &fakeMCP{}
	e := newEnv(t, scripted.Script{}, func(o *server.Options, _ *servertest.Config) { o.MCP = f })
	id := e.newSession()
	var got struct {
		Servers []map[string]any `json:"servers"`
		Prompts []map[string]any `json:"prompts"`
	}
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, &got)
	if len(got.Servers) != 1 || got.Servers[0]["session"] != id || len(got.Prompts) != 1 || got.Prompts[0]["name"] != "greet" {
		t.Fatalf("status: %+v", got)
	}
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/ev", map[string]string{"action": "disable"}, 200, nil)
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/ev", map[string]string{"action": "explode"}, 400, nil)
	e.mustDo("POST", "/api/sessions/"+id+"/mcp/nope", map[string]string{"action": "enable"}, 400, nil)
	e.mustDo("GET", "/api/sessions/ses_unknown0000/mcp", nil, 404, nil)
	if len(f.actions) != 1 || f.actions[0] != "disable" {
		t.Errorf("actions %v", f.actions)
	}
}

func TestMCPEndpointsWithoutSupport(t *testing.T) {
	e := newEnv(t, scripted.Script{})
	id := e.newSession()
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 501, nil)
}
