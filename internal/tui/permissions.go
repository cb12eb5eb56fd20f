package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

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

// toolCall is "Edit(src/main.go)" or "WebFetch(https://...)" in
// /permissions why; compiled on first use, as tandem's patterns are (each
// one compiled at start-up is paid by every run).
var toolCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Z][A-Za-z]+)\((.*)\)$`) })

func (m *model) cmdPermissions(args string) tea.Cmd {
	p, ok := m.be.(Permissions)
	if !ok {
		m.tr.notice(levelWarn, "This session's permissions cannot be shown.")
		return nil
	}
	sub, rest, _ := strings.Cut(args, " ")
	switch sub {
	case "":
		m.tr.notice(levelInfo, rulesText(m.info.Mode, p.Rules()))
	case "why":
		if strings.TrimSpace(rest) == "" {
			m.tr.notice(levelWarn, "Say what to judge: /permissions why git push origin main, or /permissions why Edit(src/main.go)")
			return nil
		}
		m.tr.notice(levelInfo, explainText(p, strings.TrimSpace(rest)))
	default:
		m.tr.notice(levelWarn, "/permissions lists the rules; /permissions why COMMAND (or Tool(path)) says how a call would be judged.")
	}
	return nil
}

func rulesText(mode string, rules []permission.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mode: %s. Deny beats ask beats allow, whatever file a rule is in.", firstNonEmpty(mode, "normal"))
	for _, action := range []permission.Action{permission.ActionDeny, permission.ActionAsk, permission.ActionAllow} {
		var lines []string
		for _, r := range rules {
			if r.Action == action {
				lines = append(lines, "  "+r.String()+"  · "+firstNonEmpty(r.Source, "?"))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s", action, strings.Join(lines, "\n"))
		}
	}
	if len(rules) == 0 {
		b.WriteString("\nNo rules: the mode decides (/permissions why CMD shows how).")
	}
	return b.String()
}

// explainText judges what as a Bash command, or as Tool(arg) for the file
// tools and WebFetch.
func explainText(p Permissions, what string) string {
	req := permission.Request{Tool: "Bash"}
	in := map[string]string{"command": what}
	if mt := toolCall().FindStringSubmatch(what); mt != nil && mt[1] != "Bash" {
		req.Tool = mt[1]
		switch mt[1] {
		case "WebFetch":
			in = map[string]string{"url": mt[2]}
		case "NotebookEdit", "NotebookRead":
			in = map[string]string{"notebook_path": mt[2]}
		default:
			in = map[string]string{"file_path": mt[2], "path": mt[2]}
		}
	} else if mt != nil {
		in["command"] = mt[2]
	}
	req.Input, _ = json.Marshal(in)
	x := p.Explain(req)
	out := fmt.Sprintf("%s → %s (%s)", what, x.Action, x.Rule)
	if x.Reason != "" {
		out += ": " + x.Reason
	}
	if len(x.Suggestion) > 0 {
		var s []string
		for _, r := range x.Suggestion {
			s = append(s, r.String())
		}
		out += "\n\"allow always\" would save " + strings.Join(s, ", ")
	}
	return out
}
