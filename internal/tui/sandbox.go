package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Sandboxed is implemented by a Backend whose sessions may run in the OS
// sandbox: /sandbox allow HOST lets the session's commands reach a host a
// sandbox_denial named, until the session ends.
type Sandboxed interface {
	SandboxAllow(host string) error
}

// cmdSandbox is /sandbox allow HOST.
func (m *model) cmdSandbox(args string) tea.Cmd {
	sub, host, _ := strings.Cut(strings.TrimSpace(args), " ")
	host = strings.TrimSpace(host)
	if sub != "allow" || host == "" {
		m.tr.notice(levelWarn, "Use /sandbox allow HOST (e.g. /sandbox allow api.example.com, or *.example.com): the session's commands may then reach it until the session ends.")
		return nil
	}
	sb := m.be.Features().Sandbox
	if sb == nil {
		m.tr.notice(levelWarn, "This session has no sandbox to widen.")
		return nil
	}
	if err := sb.SandboxAllow(host); err != nil {
		m.tr.notice(levelError, fmt.Sprintf("/sandbox allow %s: %v", host, err))
	}
	return nil
}

// denialNote is what the transcript shows of a sandbox_denial: its
// message, and for a host how to let it through from here.
func denialNote(message string, meta map[string]any) string {
	if host, _ := meta["allow"].(string); host != "" && meta["kind"] == "network" {
		return message + "\n/sandbox allow " + host + " lets it through for this session."
	}
	return message
}
