package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quitWindow is how long a first ctrl+c waits for the second.
const quitWindow = 2 * time.Second

// escTwice is how close two presses of esc open /rewind.
const escTwice = 800 * time.Millisecond

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if ks == "ctrl+c" {
		if m.quitArmed {
			return m.quit()
		}
		m.quitArmed = true
		m.in.reset()
		m.interrupt() // as in Claude Code: the first ctrl+c also stops the turn
		return tea.Tick(quitWindow, func(time.Time) tea.Msg { return disarmMsg{} })
	}
	m.quitArmed = false
	if m.x.memLine != "" {
		return m.memoryKey(k)
	}
	if m.rewind != nil {
		return m.rewindKey(k)
	}
	if m.mcp != nil {
		return m.mcpKey(k)
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if len(m.perms) > 0 && m.dialogArmed() {
		return m.dialogKey(k)
	}
	switch ks {
	case "ctrl+d":
		if m.in.value() == "" {
			return m.quit()
		}
		return nil
	case "ctrl+v":
		return m.pasteClipboardImage()
	case "ctrl+z":
		return tea.Suspend // back with fg; Bubble Tea restores and redraws
	case "esc":
		switch {
		case m.in.comp.open:
			m.in.comp.close()
		case m.busy:
			m.interrupt()
		case m.in.value() == "" && m.now().Sub(m.lastEsc) < escTwice:
			m.lastEsc = time.Time{}
			return m.cmdRewind("")
		default:
			m.lastEsc = m.now()
		}
		return nil
	case "shift+tab":
		return m.setMode(nextMode(m.info.Mode))
	case "ctrl+o":
		m.tr.details = !m.tr.details
		return nil
	case "pgup":
		m.tr.scroll(m.convHeight() - 2)
		return nil
	case "pgdown":
		m.tr.scroll(-(m.convHeight() - 2))
		return nil
	}
	if m.in.comp.open {
		switch ks {
		case "up", "ctrl+p":
			m.in.comp.move(-1)
			return nil
		case "down", "ctrl+n":
			m.in.comp.move(1)
			return nil
		case "tab":
			m.acceptCompletion(false)
			return nil
		case "enter":
			return m.acceptCompletion(true)
		}
	}
	switch ks {
	case "enter":
		v := m.in.value()
		if strings.HasSuffix(v, "\\") { // a trailing backslash continues the line, as in a shell
			m.in.set(strings.TrimSuffix(v, "\\") + "\n")
			return nil
		}
		m.tr.offset = 0
		return m.submit(m.in.take())
	case "up":
		if m.in.historyUp() {
			return nil
		}
	case "down":
		if m.in.historyDown() {
			return nil
		}
	case "tab":
		return nil // no completion open: keep focus in the editor
	}
	cmd := m.in.update(k)
	return tea.Batch(cmd, m.refreshCompletion())
}

func (m *model) pasted(s string) tea.Cmd {
	switch {
	case m.rewind != nil, m.mcp != nil:
	case m.picker != nil:
		m.picker.filter += strings.TrimSpace(s)
		m.picker.sel = 0
	case len(m.perms) > 0 && m.dialogArmed():
		if m.dlg.stage == stageReason {
			m.dlg.reason += strings.ReplaceAll(s, "\n", " ")
		}
	default:
		m.in.paste(m.pastedImage(s))
	}
	return nil
}

// refreshCompletion opens, updates or closes the popup for the word being
// typed: "/..." at the start of a one-line prompt, "@..." anywhere.
func (m *model) refreshCompletion() tea.Cmd {
	c := &m.in.comp
	v := m.in.value()
	tok := m.in.currentToken()
	switch {
	case strings.HasPrefix(v, "/model ") && !strings.Contains(v, "\n") && m.opts.Models != nil:
		if m.models == nil {
			m.models = m.opts.Models()
		}
		ids := make([]string, len(m.models))
		status := map[string]string{}
		for i, o := range m.models {
			ids[i], status[o.ID] = o.ID, o.Status
		}
		c.items = c.items[:0]
		for _, id := range rank(strings.TrimSpace(strings.TrimPrefix(v, "/model ")), ids, compShown) {
			c.items = append(c.items, compItem{label: id, desc: status[id], value: "/model " + id})
		}
		c.token, c.open = v, len(c.items) > 0
		c.sel = min(c.sel, max(len(c.items)-1, 0))
	case strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") && tok == v:
		q := strings.TrimPrefix(v, "/")
		var names []string
		byName := map[string]Command{}
		for _, cmd := range m.commands() {
			names = append(names, cmd.Name)
			byName[cmd.Name] = cmd
		}
		c.items = c.items[:0]
		for _, n := range rank(q, names, len(names)) {
			cmd := byName[n]
			c.items = append(c.items, compItem{label: "/" + n + " " + cmd.Args, desc: cmd.Help, value: "/" + n})
		}
		c.token, c.open = tok, len(c.items) > 0
		c.sel = min(c.sel, max(len(c.items)-1, 0))
	case strings.HasPrefix(tok, "@"):
		if m.files == nil {
			if !m.filesLoading {
				m.filesLoading = true
				return m.loadFiles()
			}
			return nil
		}
		c.items = c.items[:0]
		for _, f := range rank(strings.TrimPrefix(tok, "@"), m.files, compShown) {
			c.items = append(c.items, compItem{label: f, value: "@" + f})
		}
		c.token, c.open = tok, len(c.items) > 0
		c.sel = min(c.sel, max(len(c.items)-1, 0))
	default:
		c.close()
	}
	return nil
}

func (m *model) loadFiles() tea.Cmd {
	list := m.opts.Files
	cwd := m.info.Cwd
	return func() tea.Msg {
		if list != nil {
			return filesMsg(list())
		}
		return filesMsg(listFiles(cwd))
	}
}

// acceptCompletion puts the chosen item in the editor; run sends a slash
// command at once (enter), as choosing it from a menu would.
func (m *model) acceptCompletion(run bool) tea.Cmd {
	it, ok := m.in.comp.chosen()
	tok := m.in.comp.token
	m.in.comp.close()
	if !ok {
		return nil
	}
	if strings.HasPrefix(it.value, "/") {
		if run {
			m.in.reset()
			return m.submit(it.value)
		}
		m.in.set(it.value + " ")
		return nil
	}
	val := it.value
	if !strings.HasSuffix(val, "/") {
		val += " "
	}
	m.in.replaceToken(tok, val)
	return m.refreshCompletion() // a folder keeps completing inside it
}
