package app

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
)

// MCPStatus lists the session's MCP servers and their prompts (for the
// HTTP API and the Claude Code drop-in). A session without servers gives
// empty lists.
func (eq *Equipment) MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo) {
	if eq.mcp != nil && !eq.mcpStarted.Load() {
		// The Claude Code CLI runs them (its prompts are not offered).
		return eq.cliMCPStatus(), []mcp.PromptInfo{}
	}
	if eq.mcp == nil {
		return []mcp.ServerStatus{}, []mcp.PromptInfo{}
	}
	prompts := eq.mcp.Prompts()
	if prompts == nil {
		prompts = []mcp.PromptInfo{}
	}
	return eq.mcp.Status(), prompts
}

// MCPAction enables, disables, approves, reconnects or signs in to
// ("login") a server while the session lives.
func (eq *Equipment) MCPAction(server, action string) error {
	m := eq.mcp
	if m == nil {
		return fmt.Errorf("session has no MCP servers configured")
	}
	if !eq.mcpStarted.Load() {
		return eq.cliMCPAction(server, action)
	}
	switch action {
	case "enable":
		return m.Enable(server)
	case "disable":
		return m.Disable(server)
	case "approve":
		return m.Approve(server)
	case "reconnect":
		return m.Reconnect(server)
	case "login":
		// The browser step runs in the background; the server's status
		// carries the URL to open (auth_url) until it ends.
		_, err := m.StartLogin(server)
		return err
	}
	return fmt.Errorf("unknown action %q", action)
}

// WaitMCP gives the session's MCP servers a moment to connect before the
// first model call, so their tools are offered from the start.
func (eq *Equipment) WaitMCP(ctx context.Context, timeout time.Duration) {
	if eq.mcp != nil && eq.mcpStarted.Load() { // the CLI waits for its own
		eq.mcp.WaitReady(ctx, timeout)
	}
}

// Reply answers one of the session's pending permission questions
// (permission.ErrUnknownRequest when it has no such question).
func (eq *Equipment) Reply(requestID string, ans permission.Answer) error {
	return eq.broker.Reply(requestID, ans)
}

// Pending lists the session's open permission questions.
func (eq *Equipment) Pending() []permission.Question { return eq.broker.Pending() }
