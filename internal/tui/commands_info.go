package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// cmdCost reports what the session has used and spent.
func (m *model) cmdCost(string) tea.Cmd {
	m.info = m.mergeInfo(m.be.Info())
	u := m.info.Usage
	msg := fmt.Sprintf("This session: %d input tokens, %d output", u.InputTokens, u.OutputTokens)
	if u.CacheReadTokens > 0 || u.CacheCreationTokens > 0 {
		msg += fmt.Sprintf(" (cache: %d read, %d written)", u.CacheReadTokens, u.CacheCreationTokens)
	}
	if c := m.info.CostUSD; c != nil {
		msg += fmt.Sprintf("; $%.4f", *c)
	} else {
		msg += "; cost unknown (a model without a price: give it one under providers.NAME.models.ID.price in tandem's config)"
	}
	m.tr.notice(levelInfo, msg+".")
	return nil
}

// cmdStatus reports the session's settings and state.
func (m *model) cmdStatus(string) tea.Cmd {
	m.info = m.mergeInfo(m.be.Info())
	in := m.info
	lines := []string{
		"Session: " + firstNonEmpty(in.ID, "(none yet)") + suffix(" · ", sanitize(firstLine(in.Title), false)),
		"Folder: " + in.Cwd,
		"Model: " + firstNonEmpty(in.Model, "default") + " · runtime " + firstNonEmpty(in.Runtime, "native") + " · mode " + firstNonEmpty(in.Mode, "normal"),
	}
	if m.ctxLimit > 0 {
		lines = append(lines, fmt.Sprintf("Context: %d of %d tokens (%d%%)", m.ctxUsed, m.ctxLimit, m.ctxUsed*100/m.ctxLimit))
	}
	if ms := m.be.Features().MCP; ms != nil {
		if servers, _ := ms.MCPStatus(); len(servers) > 0 {
			lines = append(lines, "MCP: "+mcpSummary(servers)+" (/mcp for more)")
		}
	}
	m.tr.notice(levelInfo, strings.Join(lines, "\n"))
	return nil
}

// mcpSummary counts servers by state: "2 connected, 1 failed".
func mcpSummary(servers []mcp.ServerStatus) string {
	var order []string
	n := map[string]int{}
	for _, s := range servers {
		st := string(s.State)
		if s.NeedsApproval {
			st = "awaiting approval"
		}
		if n[st] == 0 {
			order = append(order, st)
		}
		n[st]++
	}
	parts := make([]string, len(order))
	for i, st := range order {
		parts[i] = fmt.Sprintf("%d %s", n[st], st)
	}
	return strings.Join(parts, ", ")
}

// cmdInit sends "/init [focus]": the session expands it
// (skills.ExpandBuiltin) into the request for the folder's AGENTS.md.
func (m *model) cmdInit(args string) tea.Cmd {
	return m.turn(strings.TrimSpace("/init " + args))
}
