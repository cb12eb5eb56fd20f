package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// View draws the screen: the conversation, then (bottom up) the status
// line, the editor or the permission dialog, the completion popup and the
// queued messages. Every line fits the width, so nothing wraps and the
// renderer's line diff stays exact while text streams.
func (m *model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.WindowTitle = "tandem"
	v.ReportFocus = true // notifications only when the terminal is out of focus (extras.go)
	return v
}

func (m *model) screen() string {
	w, h := max(m.width, 20), max(m.height, 6)
	bottom := m.bottom(w, h)
	convH := h - len(bottom)
	var lines []string
	if m.rewind != nil {
		lines = padTo(m.rewindView(w, convH), convH)
	} else if m.mcp != nil {
		lines = padTo(m.mcpView(w, convH), convH)
	} else if m.picker != nil {
		lines = padTo(m.pickerView(w, convH), convH)
	} else {
		lines = m.tr.view(m.th, w, convH, m.now())
		if m.tr.offset > 0 && convH > 0 {
			lines[convH-1] = m.th.warn.Render(fmt.Sprintf("↓ %d lines below · pgdn", m.tr.offset))
		}
	}
	// The conversation's lines were cut to the width when rendered (and
	// cached); the bottom is cut here, each frame.
	for _, l := range bottom {
		lines = append(lines, clipWidth(l, w))
	}
	return strings.Join(lines, "\n")
}

// convHeight is the number of rows left for the conversation.
func (m *model) convHeight() int {
	w, h := max(m.width, 20), max(m.height, 6)
	return max(h-len(m.bottom(w, h)), 1)
}

func (m *model) bottom(w, h int) []string {
	var out []string
	for i, q := range m.queue {
		if i == 3 {
			out = append(out, m.th.dim.Render(fmt.Sprintf("  … %d more queued", len(m.queue)-3)))
			break
		}
		out = append(out, m.th.dim.Render("⏳ queued: ")+clipWidth(strings.ReplaceAll(q, "\n", " ⏎ "), w-12))
	}
	if len(m.perms) > 0 {
		out = append(out, m.dialogView(w, h*2/3)...)
	}
	if len(m.perms) == 0 || !m.dialogArmed() {
		out = append(out, m.popupView(w)...)
		out = append(out, m.th.border.Render(strings.Repeat("─", w)))
		out = append(out, splitLines(m.in.ta.View())...)
	}
	out = append(out, m.customStatus()...)
	return append(out, m.statusLine(w))
}

func (m *model) popupView(w int) []string {
	c := m.in.comp
	if !c.open {
		return nil
	}
	start := 0
	if c.sel >= compShown {
		start = c.sel - compShown + 1
	}
	var out []string
	for i := start; i < len(c.items) && i < start+compShown; i++ {
		it := c.items[i]
		l := it.label
		if it.desc != "" {
			l += "  " + m.th.dim.Render(it.desc)
		}
		l = clipWidth(l, w-2)
		if i == c.sel {
			out = append(out, m.th.selected.Render("› "+ansi.Strip(l)))
		} else {
			out = append(out, "  "+l)
		}
	}
	return out
}

func (m *model) statusLine(w int) string {
	th := m.th
	var left string
	urgent := false // a hint the user must see wins over the facts
	switch {
	case m.quitArmed:
		left, urgent = th.warn.Render("press ctrl+c again to quit"), true
	case len(m.perms) > 0:
		left, urgent = th.warn.Render("waiting for your answer"), true
	case m.busy:
		el := m.now().Sub(m.turnStart).Round(time.Second)
		left = th.accent.Render(spinnerFrames[m.spin%len(spinnerFrames)]) + th.faint.Render(fmt.Sprintf(" working %s · esc to interrupt", el))
	default:
		left = th.dim.Render("/help · shift+tab mode")
	}
	model := shortModel(m.info.Model)
	if _, name, ok := strings.Cut(model, "/"); ok && w < 100 {
		model = name // the provider is the first thing to go on a narrow screen
	}
	parts := []string{th.faint.Render(model), th.mode(m.info.Mode).Render(firstNonEmpty(m.info.Mode, "normal"))}
	if m.ctxLimit > 0 {
		parts = append(parts, th.faint.Render(fmt.Sprintf("ctx %d%%", m.ctxUsed*100/m.ctxLimit)))
	}
	u := m.info.Usage
	if tok := u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens; tok > 0 {
		parts = append(parts, th.faint.Render(humanTokens(tok)+" tok"))
	}
	if m.info.CostUSD != nil && (*m.info.CostUSD > 0 || u.OutputTokens > 0) {
		parts = append(parts, th.faint.Render(fmt.Sprintf("$%.3f", *m.info.CostUSD)))
	}
	right := strings.Join(parts, th.dim.Render(" · "))
	gap := w - visibleWidth(left) - visibleWidth(right)
	if gap < 1 && urgent {
		right = clipWidth(right, max(w-visibleWidth(left)-1, 0))
		gap = w - visibleWidth(left) - visibleWidth(right)
	}
	if gap < 1 {
		// Narrow: the hint gives way to the facts.
		room := w - visibleWidth(right) - 1
		if room < 8 {
			return clipWidth(right, w)
		}
		left = clipWidth(left, room)
		gap = w - visibleWidth(left) - visibleWidth(right)
	}
	return left + strings.Repeat(" ", gap) + right
}

func shortModel(s string) string {
	if s == "" {
		return "default model"
	}
	return s
}

func humanTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func visibleWidth(s string) int { return ansi.StringWidth(s) }

func clipWidth(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

func padTo(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines[:max(n, 0)]
}
