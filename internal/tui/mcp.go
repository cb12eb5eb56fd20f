package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// MCPServers is implemented by a Backend whose sessions have MCP servers:
// /mcp shows them (state, tools, the error of one that failed, its
// stderr) and enables, disables, approves or reconnects one, as Claude
// Code's /mcp does.
type MCPServers interface {
	MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo)
	// MCPAction is "enable", "disable", "approve", "reconnect" or
	// "login" (an OAuth sign-in: the status then carries the URL to open).
	MCPAction(server, action string) error
}

// mcpPanel is the /mcp overlay.
type mcpPanel struct {
	servers []mcp.ServerStatus
	sel     int
	details bool // the selected server's tools and stderr
	note    string
	err     error
}

type (
	// mcpTickMsg refreshes an open panel: states change as servers
	// connect.
	mcpTickMsg  struct{}
	mcpActedMsg struct {
		server, action string
		err            error
	}
)

// mcpRefresh is how often an open /mcp panel re-reads the states.
const mcpRefresh = 500 * time.Millisecond

func (m *model) cmdMCP(string) tea.Cmd {
	ms := m.be.Features().MCP
	if ms == nil {
		m.tr.notice(levelWarn, "This session has no MCP support.")
		return nil
	}
	servers, _ := ms.MCPStatus()
	if len(servers) == 0 {
		m.tr.notice(levelInfo, "No MCP servers: add one with `tandem mcp add NAME COMMAND` or in .mcp.json (docs/mcp.md).")
		return nil
	}
	m.mcp = &mcpPanel{servers: servers}
	return tea.Tick(mcpRefresh, func(time.Time) tea.Msg { return mcpTickMsg{} })
}

// mcpTick re-reads the states while the panel is open.
func (m *model) mcpTick() tea.Cmd {
	if m.mcp == nil {
		return nil
	}
	if ms := m.be.Features().MCP; ms != nil {
		m.mcp.servers, _ = ms.MCPStatus()
		m.mcp.sel = min(m.mcp.sel, max(len(m.mcp.servers)-1, 0))
	}
	return tea.Tick(mcpRefresh, func(time.Time) tea.Msg { return mcpTickMsg{} })
}

func (m *model) mcpKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.mcp
	switch k.String() {
	case "esc":
		m.mcp = nil
		return nil
	case "up", "ctrl+p":
		p.sel, p.details = max(p.sel-1, 0), false
		return nil
	case "down", "ctrl+n":
		p.sel, p.details = min(p.sel+1, max(len(p.servers)-1, 0)), false
		return nil
	case "enter":
		p.details = !p.details
		return nil
	}
	if p.sel >= len(p.servers) {
		return nil
	}
	s := p.servers[p.sel]
	action := map[string]string{"r": "reconnect", "e": "enable", "d": "disable", "a": "approve", "l": "login"}[k.String()]
	if action == "" || (action == "approve" && !s.NeedsApproval) || (action == "login" && s.State != mcp.StateNeedsAuth) {
		return nil
	}
	p.note, p.err = action+" "+s.Name+"…", nil
	ms := m.be.Features().MCP
	if ms == nil {
		return nil
	}
	return func() tea.Msg { return mcpActedMsg{server: s.Name, action: action, err: ms.MCPAction(s.Name, action)} }
}

func (m *model) mcpActed(msg mcpActedMsg) {
	if m.mcp == nil {
		return
	}
	m.mcp.note, m.mcp.err = "", msg.err
	if msg.err == nil {
		m.mcp.note = msg.action + " " + msg.server + ": done"
	}
	if ms := m.be.Features().MCP; ms != nil {
		m.mcp.servers, _ = ms.MCPStatus()
	}
}

func (m *model) mcpView(width, height int) []string {
	p := m.mcp
	th := m.th
	lines := []string{th.bold.Render("MCP servers") + th.dim.Render("  ↑/↓ choose · enter details · r reconnect · e enable · d disable · a approve · l sign in · esc close")}
	room := max(height-4, 1)
	for i, s := range p.servers {
		if len(lines) > room {
			lines = append(lines, th.dim.Render(fmt.Sprintf("… %d more", len(p.servers)-i)))
			break
		}
		state := string(s.State)
		if s.NeedsApproval {
			state = "needs approval (a)"
		}
		if s.State == mcp.StateNeedsAuth && s.AuthURL == "" {
			state = "needs-auth (l)"
		}
		l := fmt.Sprintf("%-20s %-6s %-12s %3d tools", s.Name, s.Type, state, s.Tools)
		if s.Scope != "" {
			l += th.dim.Render("  " + s.Scope)
		}
		l = clipWidth(l, width-6)
		switch s.State {
		case mcp.StateConnected:
			l = th.accent.Render("●") + " " + l
		case mcp.StateFailed:
			l = th.err.Render("●") + " " + l
		default:
			l = th.dim.Render("○") + " " + l
		}
		if i == p.sel {
			l = th.selected.Render("›") + " " + l
		} else {
			l = "  " + l
		}
		lines = append(lines, l)
		if i != p.sel {
			continue
		}
		if s.Error != "" {
			lines = append(lines, prefixed(wrap(sanitize(s.Error, false), width-10), "      ", "      ", th.err)...)
		}
		if s.AuthURL != "" {
			// Whole, not clipped: the user copies it into a browser.
			lines = append(lines, "      "+th.dim.Render("open to sign in:"), "      "+sanitize(s.AuthURL, false))
		}
		if p.details {
			lines = append(lines, m.mcpDetails(s, width)...)
		}
	}
	switch {
	case p.err != nil:
		lines = append(lines, wrap(th.err.Render(p.err.Error()), width-6)...)
	case p.note != "":
		lines = append(lines, th.dim.Render(p.note))
	}
	return box(lines, width, th)
}

func (m *model) mcpDetails(s mcp.ServerStatus, width int) []string {
	th := m.th
	var out []string
	if s.ServerName != "" {
		out = append(out, "      "+th.dim.Render("server: ")+sanitize(strings.TrimSpace(s.ServerName+" "+s.ServerVersion), false))
	}
	if len(s.ToolNames) > 0 {
		out = append(out, prefixed(wrap("tools: "+strings.Join(s.ToolNames, ", "), width-10), "      ", "      ", th.dim)...)
	}
	if s.Stderr != "" {
		out = append(out, "      "+th.dim.Render("stderr (last lines):"))
		tail := strings.Split(strings.TrimRight(sanitize(s.Stderr, true), "\n"), "\n")
		if len(tail) > 6 {
			tail = tail[len(tail)-6:]
		}
		for _, t := range tail {
			out = append(out, "        "+clipWidth(t, width-12))
		}
	}
	return out
}
