package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// picker chooses a stored session to resume (/resume).
type picker struct {
	rows    []sessionRow
	sel     int
	filter  string
	loading bool
	err     error
}

type sessionRow struct {
	id, title, model string
	updated          time.Time
	messages         int
}

func (m *model) openPicker() tea.Cmd {
	m.picker = &picker{loading: true}
	return func() tea.Msg {
		list, err := m.be.Sessions(m.ctx)
		var rows []sessionRow
		for _, s := range list {
			if s.ParentID != "" {
				continue // sub-agent sessions resume through their parent
			}
			rows = append(rows, sessionRow{id: s.ID, title: s.Title, model: s.Model, updated: s.UpdatedAt, messages: s.MessageCount})
		}
		return sessionsMsg{list: rows, err: err}
	}
}

func (p *picker) loaded(msg sessionsMsg) {
	p.rows, p.err, p.loading = msg.list, msg.err, false
}

func (p *picker) visible() []sessionRow {
	if p.filter == "" {
		return p.rows
	}
	var out []sessionRow
	for _, r := range p.rows {
		if _, ok := fuzzyScore(p.filter, r.title+" "+r.id); ok {
			out = append(out, r)
		}
	}
	return out
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	rows := p.visible()
	switch k.String() {
	case "esc":
		m.picker = nil
	case "up", "ctrl+p":
		if p.sel > 0 {
			p.sel--
		}
	case "down", "ctrl+n":
		if p.sel < len(rows)-1 {
			p.sel++
		}
	case "enter":
		if p.sel < len(rows) {
			id := rows[p.sel].id
			m.picker = nil
			if id == m.info.ID {
				return nil
			}
			return m.switchTo(id)
		}
	case "backspace":
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.sel = 0
		}
	default:
		if k.Text != "" {
			p.filter += k.Text
			p.sel = 0
		}
	}
	return nil
}

func (m *model) pickerView(width, height int) []string {
	p := m.picker
	th := m.th
	lines := []string{th.bold.Render("Resume a session") + th.dim.Render("  ↑/↓ choose · enter open · esc close · type to filter"),
		"filter: " + p.filter}
	switch {
	case p.loading:
		lines = append(lines, th.dim.Render("loading…"))
	case p.err != nil:
		lines = append(lines, th.err.Render(p.err.Error()))
	}
	rows := p.visible()
	if !p.loading && len(rows) == 0 && p.err == nil {
		lines = append(lines, th.dim.Render("no sessions"))
	}
	lines = append(lines, listRows(th, len(rows), p.sel, max(height-len(lines)-2, 1), width, func(i int) string {
		r := rows[i]
		title := firstNonEmpty(sanitize(firstLine(r.title), false), "(untitled)")
		l := fmt.Sprintf("%s  %-16s  %3d msgs  %s", r.id, r.updated.Local().Format("2006-01-02 15:04"), r.messages, title)
		if r.id == m.info.ID {
			l += "  (open)"
		}
		return l
	})...)
	return box(lines, width, th)
}

// listRows is the part of a list of n rows that fits in room lines,
// scrolled to keep sel in sight and marked; row(i) is the text of row i.
func listRows(th *theme, n, sel, room, width int, row func(i int) string) []string {
	start := 0
	if sel >= room {
		start = sel - room + 1
	}
	var out []string
	for i := start; i < n && i < start+room; i++ {
		l := clipWidth(row(i), width-6)
		if i == sel {
			l = th.selected.Render("› " + l)
		} else {
			l = "  " + l
		}
		out = append(out, l)
	}
	return out
}
