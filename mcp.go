package tandem

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// MCPServer is a Model Context Protocol server given in code. Its tools
// reach the model as mcp__NAME__TOOL. The program vouches for it, so it
// starts without the approval a cloned project's .mcp.json servers need.
// Servers start in the background when a session opens; NewSession waits
// up to Options.MCPWait for them to connect.
type MCPServer struct {
	Name string
	// Command and Args start a stdio server; Env is added to its
	// environment (tandem's own credentials are removed from it); Dir is
	// its working folder ("" : the session's).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL reaches a Streamable HTTP server (or, with Type "sse", a legacy
	// SSE one); Headers go with every request.
	URL     string
	Headers map[string]string
	// Type is "stdio", "http", "sse" or "ws"; "" means stdio when Command
	// is set, else http.
	Type string
	// Timeout bounds one tool call (0: 120 s).
	Timeout time.Duration
	// EnabledTools, when set, offers only these tools of the server;
	// DisabledTools hides some.
	EnabledTools, DisabledTools []string
}

// mcpJSON encodes servers as an "mcpServers" object; a later entry of the
// same name replaces an earlier one (a session's over the engine's).
func mcpJSON(lists ...[]MCPServer) (json.RawMessage, error) {
	all := map[string]mcp.ServerConfig{}
	for _, list := range lists {
		for _, s := range list {
			if s.Name == "" {
				return nil, fmt.Errorf("MCP server without a Name: name each server (its tools are offered as mcp__NAME__TOOL)")
			}
			if s.Command == "" && s.URL == "" {
				return nil, fmt.Errorf("MCP server %s: set Command (a stdio server) or URL (an HTTP server)", s.Name)
			}
			all[s.Name] = mcp.ServerConfig{Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Dir, URL: s.URL,
				Headers: s.Headers, Timeout: mcp.Duration(s.Timeout), EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(all)
	if err != nil {
		return nil, fmt.Errorf("encode MCP servers: %w", err)
	}
	// The session would only warn about a bad entry and go on without it;
	// a program wants to hear at once.
	if _, errs := mcp.ParseServers(raw, mcp.ScopeUser, "MCPServers"); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return raw, nil
}
