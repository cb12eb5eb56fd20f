package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/permission"
)

// Permissions is implemented by a Backend whose sessions run under
// tandem's permission engine: /permissions lists the rules in force and
// says how a command or a call would be judged, and by which rule.
type Permissions interface {
	Rules() []permission.Rule
	Explain(req permission.Request) permission.Explanation
}

func (m *model) cmdPermissions(args string) tea.Cmd {
	p := m.be.Features().Permissions
	if p == nil {
		m.tr.notice(levelWarn, "This session's permissions cannot be shown.")
		return nil
	}
	sub, rest, _ := strings.Cut(args, " ")
	switch sub {
	case "":
		m.tr.notice(levelInfo, permission.DescribeRules(permission.Mode(firstNonEmpty(m.info.Mode, "normal")), p.Rules()))
	case "why":
		what := strings.TrimSpace(rest)
		if what == "" {
			m.tr.notice(levelWarn, "Say what to judge: /permissions why git push origin main, or /permissions why Edit(src/main.go)")
			return nil
		}
		m.tr.notice(levelInfo, p.Explain(permission.CallFromText(what)).Describe(what))
	default:
		m.tr.notice(levelWarn, "/permissions lists the rules; /permissions why COMMAND (or Tool(path)) says how a call would be judged.")
	}
	return nil
}
