package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/prompt"
)

// OutputStyles lists the output styles the session may use and saves the
// folder's choice (Claude Code's /config "Output style").
type OutputStyles interface {
	OutputStyles() ([]prompt.Style, string)
	SetOutputStyle(name string) (string, error)
}

// cmdOutputStyle is /output-style (the list, the one in force marked) and
// /output-style NAME (saved for the folder: a style is part of the
// system prompt, which a session keeps, so it applies from /clear or the
// next session, as in Claude Code).
func (m *model) cmdOutputStyle(args string) tea.Cmd {
	st := m.be.Features().OutputStyles
	if st == nil {
		m.tr.notice(levelWarn, "This session's runtime has no output styles of tandem's.")
		return nil
	}
	name := strings.TrimSpace(args)
	if name == "" {
		styles, current := st.OutputStyles()
		m.tr.notice(levelInfo, styleList(styles, current))
		return nil
	}
	return m.action(func(context.Context) (string, error) {
		path, err := st.SetOutputStyle(name)
		if err != nil {
			return "", fmt.Errorf("/output-style: %w", err)
		}
		return fmt.Sprintf("Output style %s saved in %s: it applies from /clear or the next session.", sanitize(name, false), path), nil
	})
}

// styleList is /output-style's text: each style with its description and
// where it comes from, the one in force marked.
func styleList(styles []prompt.Style, current string) string {
	var b strings.Builder
	b.WriteString("Output styles (/output-style NAME chooses one for this folder):")
	for _, s := range styles {
		mark := "  "
		if strings.EqualFold(s.Name, current) || (current == "" && strings.EqualFold(s.Name, prompt.DefaultStyle)) {
			mark = "● "
		}
		line := mark + sanitize(s.Name, false)
		if s.Description != "" {
			line += " — " + sanitize(s.Description, false)
		}
		if s.Plugin != "" {
			line += " (plugin " + sanitize(s.Plugin, false) + ")"
		} else if s.Source != "" && s.Source != "builtin" {
			line += " (" + sanitize(s.Source, false) + ")"
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}
