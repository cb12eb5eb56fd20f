package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
)

// A permission request of a kind (meta.kind) is a question to the user,
// not a call to approve: a plan (ExitPlanMode) approved into acceptEdits
// or normal, or sent back with feedback; the model's questions
// (AskUserQuestion), answered one at a time by number, several numbers
// then enter for a multi-select one, or typed ("Other").

func kindOf(ev event.Event) permission.Interaction {
	k, _ := ev.Meta["kind"].(string)
	return permission.Interaction(k)
}

// interaction is the dialog's progress through the model's questions.
type interaction struct {
	index   int
	picked  map[int]bool
	typing  bool
	answers map[string]string
}

func (m *model) interactKey(req event.Event, k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if m.dlg.stage == stageReason || m.dlg.it.typing {
		switch ks {
		case "esc":
			m.dlg.stage, m.dlg.it.typing, m.dlg.reason = stageChoose, false, ""
		case "enter":
			text := strings.TrimSpace(m.dlg.reason)
			m.dlg.reason = ""
			if m.dlg.stage == stageReason {
				return m.answer(permission.Answer{Decision: permission.DenyCall, Message: text})
			}
			m.dlg.it.typing = false
			if text != "" {
				return m.answerQuestion(req, text)
			}
		case "backspace":
			if r := []rune(m.dlg.reason); len(r) > 0 {
				m.dlg.reason = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" {
				m.dlg.reason += k.Text
			}
		}
		return nil
	}
	if ks == "esc" {
		m.interrupt()
		return nil
	}
	if kindOf(req) == permission.PlanApproval {
		switch strings.ToLower(ks) {
		case "1", "a":
			return m.answer(permission.Answer{Decision: permission.AllowOnce, Mode: permission.AcceptEdits})
		case "2", "y":
			return m.answer(permission.Answer{Decision: permission.AllowOnce, Mode: permission.Normal})
		case "3", "n":
			m.dlg.stage = stageReason
		}
		return nil
	}
	qs, err := permit.ParseQuestions(req.Input)
	if err != nil {
		return m.answer(permission.Answer{Decision: permission.DenyCall, Message: err.Error()})
	}
	q := qs.Questions[m.dlg.it.index]
	switch ks {
	case "d":
		return m.answer(permission.Answer{Decision: permission.DenyCall, Message: "The user declined to answer."})
	case "o", strconv.Itoa(len(q.Options) + 1):
		m.dlg.it.typing = true
		return nil
	case "enter":
		if q.MultiSelect && len(m.dlg.it.picked) > 0 {
			var labels []string
			for i, o := range q.Options {
				if m.dlg.it.picked[i] {
					labels = append(labels, o.Label)
				}
			}
			return m.answerQuestion(req, strings.Join(labels, ", "))
		}
		return nil
	}
	n, err := strconv.Atoi(ks)
	if err != nil || n < 1 || n > len(q.Options) {
		return nil
	}
	if !q.MultiSelect {
		return m.answerQuestion(req, q.Options[n-1].Label)
	}
	if m.dlg.it.picked == nil {
		m.dlg.it.picked = map[int]bool{}
	}
	m.dlg.it.picked[n-1] = !m.dlg.it.picked[n-1]
	return nil
}

// answerQuestion records the answer to the question on screen and moves
// on; after the last one the answers go back.
func (m *model) answerQuestion(req event.Event, answer string) tea.Cmd {
	qs, _ := permit.ParseQuestions(req.Input)
	it := &m.dlg.it
	if it.answers == nil {
		it.answers = map[string]string{}
	}
	it.answers[qs.Questions[it.index].Question] = answer
	it.index++
	it.picked = nil
	if it.index < len(qs.Questions) {
		return nil
	}
	return m.answer(permission.Answer{Decision: permission.AllowOnce, Answers: it.answers})
}

// interactView draws the plan or the question on screen. Its text is the
// model's own input, which the event's cleaning (clean) does not reach:
// every piece of it is stripped of terminal controls here.
func (m *model) interactView(req event.Event, width, maxH int) []string {
	th := m.th
	w := width - 4
	key := func(k string) string { return th.bold.Render("[" + k + "]") }
	var body []string
	if kindOf(req) == permission.PlanApproval {
		body = append(body, th.warn.Bold(true).Render("Plan")+th.dim.Render(" · approve it to start working"))
		p, _ := permit.ParsePlan(req.Input)
		plan := strings.Split(strings.TrimRight(th.md.render(sanitize(p.Plan, true), w), "\n"), "\n")
		if room := max(maxH-8, 3); len(plan) > room {
			plan = append(plan[:room-1], th.dim.Render(fmt.Sprintf("… +%d lines", len(plan)-room+1)))
		}
		body = append(body, plan...)
		body = append(body, "")
		switch {
		case m.dlg.stage == stageReason:
			body = append(body, "Keep planning. Tell the model what to change (enter sends):", "› "+m.dlg.reason+"█")
		case !m.dialogArmed():
			body = append(body, th.dim.Render("answers open in a moment; until then keys go to your prompt"))
		default:
			body = append(body, wrap(key("1")+" yes, accept edits  "+key("2")+" yes, ask before edits  "+key("3")+" no, keep planning (with feedback)  "+key("esc")+" interrupt", w)...)
		}
		return box(body, width, th)
	}
	qs, err := permit.ParseQuestions(req.Input)
	if err != nil {
		return box([]string{th.err.Render(sanitize(err.Error(), false))}, width, th)
	}
	it := m.dlg.it
	q := qs.Questions[min(it.index, len(qs.Questions)-1)]
	title := th.warn.Bold(true).Render("Question") + th.dim.Render(fmt.Sprintf(" · %d of %d", it.index+1, len(qs.Questions)))
	if q.Header != "" {
		title += th.dim.Render(" · " + sanitize(q.Header, false))
	}
	body = append(body, title)
	body = append(body, wrap(sanitize(q.Question, true), w)...)
	for i, o := range q.Options {
		mark := ""
		if q.MultiSelect {
			mark = "[ ] "
			if it.picked[i] {
				mark = "[x] "
			}
		}
		line := fmt.Sprintf("%s %s%s", key(strconv.Itoa(i+1)), mark, th.bold.Render(sanitize(o.Label, false)))
		if o.Description != "" {
			line += th.dim.Render(" — " + sanitize(o.Description, false))
		}
		body = append(body, wrap(line, w)...)
	}
	body = append(body, key(strconv.Itoa(len(q.Options)+1))+" Other: type your own answer")
	body = append(body, "")
	switch {
	case it.typing:
		body = append(body, "Your answer (enter sends, esc back):", "› "+m.dlg.reason+"█")
	case !m.dialogArmed():
		body = append(body, th.dim.Render("answers open in a moment; until then keys go to your prompt"))
	case q.MultiSelect:
		body = append(body, wrap("numbers pick (several), "+key("enter")+" confirms  "+key("d")+" decline  "+key("esc")+" interrupt", w)...)
	default:
		body = append(body, wrap("a number answers  "+key("d")+" decline  "+key("esc")+" interrupt", w)...)
	}
	return box(body, width, th)
}
