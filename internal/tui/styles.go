package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/tandem-agent/tandem/internal/permission"
)

// theme holds the styles of one UI. Built when the UI opens (never at
// package init), so `tandem --version` pays nothing for them.
type theme struct {
	plain                             bool // NO_COLOR: no colours, only layout
	user, dim, faint, accent, bold    lipgloss.Style
	ok, warn, err, add, del, hunk     lipgloss.Style
	toolName, border, selected, badge lipgloss.Style
	code, italic, link                lipgloss.Style
	modeStyle                         map[string]lipgloss.Style
	md                                *markdown
}

func newTheme(plain bool) *theme {
	c := func(code string) lipgloss.Style {
		if plain {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(lipgloss.Color(code))
	}
	t := &theme{plain: plain,
		user: c("12").Bold(true), dim: c("8"), faint: c("245"), accent: c("13"), bold: lipgloss.NewStyle().Bold(true),
		ok: c("10"), warn: c("11"), err: c("9"), add: c("2"), del: c("1"), hunk: c("6"),
		toolName: c("14").Bold(true), border: c("8"), selected: c("0"), badge: c("0"),
	}
	if !plain {
		t.selected = lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("12"))
	} else {
		t.selected = lipgloss.NewStyle().Reverse(true)
	}
	t.modeStyle = map[string]lipgloss.Style{string(permission.Explore): c("12"), string(permission.Normal): c("10"), string(permission.Trust): c("9").Bold(true)}
	t.code, t.italic, t.link = c("216"), lipgloss.NewStyle().Italic(true), c("12").Underline(true)
	if plain {
		t.link = lipgloss.NewStyle().Underline(true)
	}
	t.md = newMarkdown(t)
	return t
}

func (t *theme) mode(m string) lipgloss.Style {
	if s, ok := t.modeStyle[m]; ok {
		return s
	}
	return t.warn
}
