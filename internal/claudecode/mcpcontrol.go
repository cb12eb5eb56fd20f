package claudecode

import (
	"context"
	"errors"
	"time"
)

// ErrNoTurn is what the live MCP controls return when no turn of the
// session runs: the change then applies from the next turn's
// --mcp-config, which the caller builds.
var ErrNoTurn = errors.New("no claude-code turn is running")

// MCPToggle enables or disables one of the MCP servers the CLI running
// sessionID's turn was started with (the CLI's mcp_toggle: a disabled
// server is disconnected and its tools withdrawn from the model).
func (r *Runtime) MCPToggle(ctx context.Context, sessionID, server string, enabled bool) error {
	return r.liveControl(ctx, sessionID, map[string]any{"subtype": "mcp_toggle", "serverName": server, "enabled": enabled})
}

// MCPReconnect restarts one of the CLI's MCP servers (mcp_reconnect).
func (r *Runtime) MCPReconnect(ctx context.Context, sessionID, server string) error {
	return r.liveControl(ctx, sessionID, map[string]any{"subtype": "mcp_reconnect", "serverName": server})
}

func (r *Runtime) liveControl(ctx context.Context, sessionID string, body map[string]any) error {
	r.mu.Lock()
	running := r.active[sessionID] != nil
	r.mu.Unlock()
	if !running {
		return ErrNoTurn
	}
	return r.controlWithin(ctx, sessionID, body, mcpControlTimeout)
}

// mcpControlTimeout bounds a live MCP change: the CLI answers a reconnect
// once the server has started again, which for a node or npx server on a
// busy machine takes many seconds (Claude Code's own MCP_TIMEOUT is 30 s).
const mcpControlTimeout = 60 * time.Second

// MCPServers are the MCP servers the CLI of sessionID's last turn
// reported at its start, with their states; nil before any turn.
func (r *Runtime) MCPServers(sessionID string) []MCPServer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mcpSeen[sessionID]
}

func (r *Runtime) noteMCP(sessionID string, servers []MCPServer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mcpSeen[sessionID] = servers
}
