package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
)

// Under the claude-code runtime the CLI runs the session's MCP servers
// (their tools must live in its process), so tandem's own Manager stays
// unstarted: each server starts once. The Manager starts when a native
// turn first needs it (a session switched to native, auto resolving to
// native). What the user toggles while the session lives is kept here and
// reaches the CLI twice: at once through the running CLI's mcp_toggle /
// mcp_reconnect, and in every later turn's --mcp-config.

// cliMCP is the session's MCP state as the claude-code runtime sees it.
type cliMCP struct {
	servers mcp.Servers // every configured server, approved or not
	policy  mcp.Policy
	// on and off are the live toggles: on clears a config "disabled",
	// off takes a server away.
	on, off map[string]bool
	// rt is the claude-code runtime of the session's latest turn (the
	// one a live toggle reaches); nil before the first.
	rt *claudecode.Runtime
}

// cliRunsMCP reports whether the session's turns run under the Claude
// Code CLI, which then starts the MCP servers itself.
func (w *wiring) cliRunsMCP(name runtimes.Name, l *session.Live, eq *Equipment) bool {
	switch name {
	case runtimes.ClaudeCode:
		return true
	case runtimes.Auto:
		cc, err := ClaudeCodeConfig(eq.cfg)
		if err != nil {
			return false
		}
		provName := "anthropic"
		if res, err := w.app.Catalog.Resolve(firstNonEmpty(l.Snapshot().Model, w.app.DefaultModel(eq.cfg))); err == nil {
			provName = res.Provider
		}
		pc, err := w.app.models.providerConfig(provName, eq.cfg)
		if err != nil {
			return false
		}
		sel, err := claudecode.AutoSelect(name, cc, pc.Kind)
		return err == nil && sel.Runtime == runtimes.ClaudeCode
	}
	return false
}

// startMCP starts tandem's own MCP connections (idempotent).
func (eq *Equipment) startMCP(ctx context.Context) {
	if eq.mcp == nil {
		return
	}
	if eq.mcpStarted.Swap(true) {
		return
	}
	eq.mcp.Start(context.WithoutCancel(ctx))
	// What the user toggled while the CLI ran the servers still holds.
	eq.mu.Lock()
	on, off := eq.cli.on, eq.cli.off
	eq.mu.Unlock()
	for name, v := range off {
		if v {
			_ = eq.mcp.Disable(name)
		}
	}
	for name, v := range on {
		if v {
			_ = eq.mcp.Enable(name)
		}
	}
}

// cliServers are the servers the next CLI turn runs: the approved ones,
// with the live toggles applied.
func (eq *Equipment) cliServers() mcp.Servers {
	eq.mu.Lock()
	defer eq.mu.Unlock()
	s := eq.cli
	all := mcp.Servers{}
	for name, c := range s.servers {
		if s.off[name] {
			continue
		}
		if s.on[name] {
			c.Disabled = false
		}
		all[name] = c
	}
	run, _ := all.Runnable(s.policy)
	return run
}

// setCLIRuntime remembers the runtime of the turn about to run.
func (eq *Equipment) setCLIRuntime(rt *claudecode.Runtime) {
	eq.mu.Lock()
	eq.cli.rt = rt
	eq.mu.Unlock()
}

// cliMCPAction is MCPAction while the CLI runs the servers.
func (eq *Equipment) cliMCPAction(server, action string) error {
	eq.mu.Lock()
	s := &eq.cli
	c, ok := s.servers[server]
	rt := s.rt
	eq.mu.Unlock()
	if !ok {
		return fmt.Errorf("no mcp server named %q (configured: %v)", server, s.servers.Names())
	}
	set := func(enabled bool) {
		eq.mu.Lock()
		s.on[server], s.off[server] = enabled, !enabled
		eq.mu.Unlock()
	}
	ctx, sid := context.Background(), eq.l.Snapshot().ID
	live := func(err error) error {
		if err == nil || errors.Is(err, claudecode.ErrNoTurn) {
			return nil // no turn running: the next turn's --mcp-config carries it
		}
		return fmt.Errorf("mcp server %s: the change applies from the next turn; the running Claude Code CLI did not take it now: %w", server, err)
	}
	switch action {
	case "approve":
		if mcp.NeedsApproval(c.Scope) {
			if s.policy.Approvals == nil {
				return fmt.Errorf("approve mcp server %s: no approvals store configured", server)
			}
			if err := s.policy.Approvals.Approve(s.policy.Project, server); err != nil {
				return fmt.Errorf("approve mcp server %s: %w", server, err)
			}
		}
		fallthrough
	case "enable":
		if !s.policy.Allowed(server, c) {
			return fmt.Errorf("mcp server %s comes from %s and is not approved; approve it first", server, c.File)
		}
		set(true)
		if rt == nil {
			return nil
		}
		return live(rt.MCPToggle(ctx, sid, server, true))
	case "disable":
		set(false)
		if rt == nil {
			return nil
		}
		return live(rt.MCPToggle(ctx, sid, server, false))
	case "reconnect":
		if rt == nil {
			return nil
		}
		return live(rt.MCPReconnect(ctx, sid, server))
	}
	return fmt.Errorf("unknown action %q", action)
}

// cliMCPStatus reports the servers as the CLI last did, with the live
// toggles and approvals tandem keeps.
func (eq *Equipment) cliMCPStatus() []mcp.ServerStatus {
	run := eq.cliServers()
	eq.mu.Lock()
	s := eq.cli
	eq.mu.Unlock()
	seen := map[string]string{}
	if s.rt != nil {
		for _, m := range s.rt.MCPServers(eq.l.Snapshot().ID) {
			seen[m.Name] = m.Status
		}
	}
	out := make([]mcp.ServerStatus, 0, len(s.servers))
	for _, name := range s.servers.Names() {
		c := s.servers[name]
		st := mcp.ServerStatus{Name: name, Type: c.TransportType(), Scope: c.Scope, State: mcp.StateDisabled}
		switch _, runs := run[name]; {
		case !runs && !s.policy.Allowed(name, c):
			st.NeedsApproval = true
			st.Error = fmt.Sprintf("project server from %s is not approved; run `tandem mcp enable %s` to approve it", c.File, name)
		case !runs:
		case seen[name] == "connected":
			st.State = mcp.StateConnected
		case seen[name] == "failed" || seen[name] == "needs-auth":
			st.State, st.Error = mcp.StateFailed, "the Claude Code CLI reports "+seen[name]
		default:
			// Not yet started by a CLI turn, or still connecting.
			st.State = mcp.StateStarting
		}
		out = append(out, st)
	}
	return out
}
