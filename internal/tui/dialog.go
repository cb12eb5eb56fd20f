package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// permDialog is the state of the permission question on screen (the
// first of m.perms): choosing, picking the scope of "allow always", or
// typing the reason of a denial.
type permDialog struct {
	stage  int
	reason string
	err    string
	it     interaction // a question to the user (interact.go)
	el     elicitState // an MCP server's question (elicit.go)
}

const (
	stageChoose = iota
	stageScope
	stageReason
)

// dialogArmDelay is how long a permission question on screen leaves keys
// to the prompt: one that appears while the user types must not take
// their next "y" or "n" for an answer. Meanwhile the prompt stays on
// screen below it, so the keys are seen to land there.
const dialogArmDelay = 400 * time.Millisecond

func (m *model) dialogArmed() bool {
	return m.now().Sub(m.dlgSince) >= m.armDelay
}

// armTimer redraws the dialog when it starts taking keys.
func (m *model) armTimer() tea.Cmd {
	if len(m.perms) == 0 || m.dialogArmed() {
		return nil
	}
	return tea.Tick(m.armDelay-m.now().Sub(m.dlgSince), func(time.Time) tea.Msg { return armedMsg{} })
}

func (m *model) dropPermission(requestID string) {
	for i, p := range m.perms {
		if p.RequestID == requestID {
			m.perms = append(m.perms[:i:i], m.perms[i+1:]...)
			if i == 0 {
				m.dlg = permDialog{}
				m.dlgSince = m.now()
			}
			return
		}
	}
}

// answer replies to the request on screen. The permission_reply event
// that follows closes the dialog; a reply refused (answered elsewhere
// first) closes it too.
func (m *model) answer(a permission.Answer) tea.Cmd {
	req := m.perms[0]
	a.By = "tui"
	m.dropPermission(req.RequestID)
	return func() tea.Msg {
		if err := m.be.Reply(req.RequestID, a); err != nil {
			return actionMsg{err: err}
		}
		return nil
	}
}

func (m *model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	req := m.perms[0]
	if kindOf(req) == permission.Elicitation {
		return m.elicitKey(req, k)
	}
	if kindOf(req) != "" {
		return m.interactKey(req, k)
	}
	ks := k.String()
	if ks == "esc" {
		if m.dlg.stage != stageChoose {
			m.dlg = permDialog{}
			return nil
		}
		m.interrupt() // as in Claude Code: esc stops the turn, the call is not run
		return nil
	}
	switch m.dlg.stage {
	case stageChoose:
		switch strings.ToLower(ks) {
		case "y", "1":
			return m.answer(permission.Answer{Decision: permission.AllowOnce})
		case "a", "2":
			if req.Suggestion == "" {
				m.dlg.err = "allow always is not offered for this call: answer y or n"
				return nil
			}
			m.dlg = permDialog{stage: stageScope}
		case "n", "3":
			m.dlg = permDialog{stage: stageReason}
		case "shift+tab":
			return m.setMode(nextMode(m.info.Mode))
		}
	case stageScope:
		scope := map[string]permission.Scope{"s": permission.ScopeSession, "enter": permission.ScopeSession,
			"p": permission.ScopeProject, "u": permission.ScopeUser}[strings.ToLower(ks)]
		if scope != "" {
			return m.answer(permission.Answer{Decision: permission.AllowAlways, Scope: scope})
		}
	case stageReason:
		switch ks {
		case "enter":
			return m.answer(permission.Answer{Decision: permission.DenyCall, Message: strings.TrimSpace(m.dlg.reason)})
		case "backspace":
			if r := []rune(m.dlg.reason); len(r) > 0 {
				m.dlg.reason = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" {
				m.dlg.reason += k.Text
			}
		}
	}
	return nil
}

// dialogView draws the question on screen within width and maxH lines.
func (m *model) dialogView(width, maxH int) []string {
	req := m.perms[0]
	if kindOf(req) == permission.Elicitation {
		return m.elicitView(req, width)
	}
	if kindOf(req) != "" {
		return m.interactView(req, width, maxH)
	}
	th := m.th
	w := width - 4
	var body []string
	title := th.warn.Bold(true).Render("Permission") + th.dim.Render(fmt.Sprintf(" · %s", req.ToolName))
	if n := len(m.perms); n > 1 {
		title += th.dim.Render(fmt.Sprintf(" · %d more waiting", n-1))
	}
	body = append(body, title)
	body = append(body, wrap("tandem wants to: "+firstNonEmpty(req.Summary, req.ToolName), w)...)
	if req.Message != "" {
		body = append(body, prefixed(wrap("why it asks: "+req.Message, w), "", "", th.faint)...)
	}
	if req.Diff != "" {
		room := max(maxH-len(body)-5, 3)
		d := diffLinesOf(req.Diff, th, w, true, "", "")
		if len(d) > room {
			d = append(d[:room-1], th.dim.Render(fmt.Sprintf("… +%d lines", len(d)-room+1)))
		}
		body = append(body, d...)
	}
	body = append(body, "")
	body = append(body, m.dialogChoices(req, w)...)
	if m.dlg.err != "" {
		body = append(body, th.err.Render(m.dlg.err))
	}
	if len(body) > maxH-2 {
		body = append(body[:max(maxH-2-2, 1)], body[len(body)-2:]...)
	}
	return box(body, width, th)
}

func (m *model) dialogChoices(req event.Event, w int) []string {
	th := m.th
	key := func(k string) string { return th.bold.Render("[" + k + "]") }
	switch m.dlg.stage {
	case stageScope:
		return wrap(fmt.Sprintf("Save %s for %s this session  %s the project  %s you (every project)  %s back",
			th.accent.Render(req.Suggestion), key("s"), key("p"), key("u"), key("esc")), w)
	case stageReason:
		return []string{"Deny. Tell the model why (enter sends, empty for no reason):", "› " + m.dlg.reason + "█"}
	}
	if !m.dialogArmed() {
		return []string{th.dim.Render("answers open in a moment; until then keys go to your prompt")}
	}
	parts := []string{key("y") + " allow once"}
	if req.Suggestion != "" {
		parts = append(parts, key("a")+" allow always: "+th.accent.Render(req.Suggestion))
	}
	parts = append(parts, key("n")+" deny (with a reason)", key("esc")+" interrupt")
	return wrap(strings.Join(parts, "  "), w)
}

// box frames lines with a rounded border at width.
func box(lines []string, width int, th *theme) []string {
	inner := width - 4
	out := []string{th.border.Render("╭" + strings.Repeat("─", width-2) + "╮")}
	for _, l := range lines {
		l = clipWidth(l, inner)
		pad := inner - visibleWidth(l)
		out = append(out, th.border.Render("│ ")+l+strings.Repeat(" ", max(pad, 0))+th.border.Render(" │"))
	}
	return append(out, th.border.Render("╰"+strings.Repeat("─", width-2)+"╯"))
}
