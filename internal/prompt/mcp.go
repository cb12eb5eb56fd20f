package prompt

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/termsafe"
)

// Budgets of the MCP servers' instructions in the system prompt (the
// `instructions` of each server's initialize result). A server's text is
// its author's, not the user's: a long one would crowd out the
// conversation and be resent with every request.
const (
	// MCPInstructionsPerServer caps one server's instructions, in bytes.
	MCPInstructionsPerServer = 4 << 10
	// MCPInstructionsTotal caps all servers' instructions together.
	MCPInstructionsTotal = 12 << 10
)

// cutShort marks where a server's text was cut, as Claude Code marks it.
const cutShort = "[cut short]"

// MCPInstructions renders the connected servers' instructions (server
// name -> text) as Claude Code words them: a "# MCP Server Instructions"
// section with one "## name" part per server, in name order. Control
// characters are escaped (termsafe.Text) and each text is capped, then
// the whole; a cut text ends with [cut short] and the heading says so.
// Empty when no server gave any.
func MCPInstructions(servers map[string]string) string {
	names := make([]string, 0, len(servers))
	for n, text := range servers {
		if strings.TrimSpace(text) != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	var parts []string
	shortened := false
	left := MCPInstructionsTotal
	for _, n := range names {
		if left <= 0 {
			shortened = true
			parts = append(parts, "## "+termsafe.Line(n)+"\n"+cutShort)
			continue
		}
		text := termsafe.Text(strings.TrimSpace(servers[n]))
		limit := min(MCPInstructionsPerServer, left)
		if len(text) > limit {
			text = cutAt(text, limit) + "\n" + cutShort
			shortened = true
		}
		left -= len(text)
		parts = append(parts, "## "+termsafe.Line(n)+"\n"+text)
	}
	note := ""
	if shortened {
		note = ". To save room, some are cut, and " + cutShort + " marks where a server's text stops"
	}
	return fmt.Sprintf("# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use their tools and resources%s:\n\n%s",
		note, strings.Join(parts, "\n\n"))
}

// cutAt shortens s to at most n bytes on a character boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
