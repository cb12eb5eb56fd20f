package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	glamstyles "charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// theme holds the styles of one UI. Built when the UI opens (never at
// package init), so `tandem --version` pays nothing for them.
type theme struct {
	plain                             bool // NO_COLOR: no colours, only layout
	user, dim, faint, accent, bold    lipgloss.Style
	ok, warn, err, add, del, hunk     lipgloss.Style
	toolName, border, selected, badge lipgloss.Style
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
	t.modeStyle = map[string]lipgloss.Style{"explore": c("12"), "normal": c("10"), "trust": c("9").Bold(true)}
	t.md = newMarkdown(plain)
	return t
}

func (t *theme) mode(m string) lipgloss.Style {
	if s, ok := t.modeStyle[m]; ok {
		return s
	}
	return t.warn
}

// markdown renders assistant text, with one renderer per width (creating
// one costs more than rendering a paragraph).
type markdown struct {
	plain     bool
	width     int
	r         *glamour.TermRenderer
	renderErr bool
}

func newMarkdown(plain bool) *markdown { return &markdown{plain: plain} }

func (md *markdown) render(src string, width int) string {
	if width < 10 {
		width = 10
	}
	if md.r == nil || md.width != width {
		cfg := glamstyles.DarkStyleConfig
		if md.plain {
			cfg = glamstyles.NoTTYStyleConfig
		}
		// The card layout indents for itself.
		zero := uint(0)
		cfg.Document = ansi.StyleBlock{Margin: &zero}
		r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width))
		if err != nil {
			md.r = nil
			return src
		}
		md.r, md.width = r, width
	}
	out, err := md.r.Render(src)
	if err != nil {
		return src // show the raw text rather than nothing
	}
	return strings.Trim(out, "\n")
}
