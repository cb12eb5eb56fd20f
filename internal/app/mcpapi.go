package app

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/session"
)

// MCPStatus lists a live session's MCP servers and their prompts (for the
// HTTP API). A session without servers gives empty lists.
func (a *App) MCPStatus(l *session.Live) (any, any) {
	m := a.mcpOf(l)
	if m == nil {
		return []mcp.ServerStatus{}, []mcp.PromptInfo{}
	}
	prompts := m.Prompts()
	if prompts == nil {
		prompts = []mcp.PromptInfo{}
	}
	return m.Status(), prompts
}

// MCPAction enables, disables, approves or reconnects a server while the
// session lives.
func (a *App) MCPAction(l *session.Live, server, action string) error {
	m := a.mcpOf(l)
	if m == nil {
		return fmt.Errorf("session has no MCP servers configured")
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
	}
	return fmt.Errorf("unknown action %q", action)
}

func (a *App) mcpOf(l *session.Live) *mcp.Manager {
	w, ok := a.Manager.Wiring().(*wiring)
	if !ok {
		return nil
	}
	if eq := w.get(l); eq != nil {
		return eq.mcp
	}
	return nil
}
