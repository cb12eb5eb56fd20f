package tui

import (
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// showHistory draws a resumed session's stored conversation.
func (m *model) showHistory(h historyMsg) {
	if h.err != nil {
		m.tr.notice(levelError, "load the conversation: "+h.err.Error())
		return
	}
	if len(h.msgs) > 0 && h.note == "" {
		m.tr.notice(levelInfo, "Resumed session "+m.info.ID+suffix(": ", m.info.Title))
	}
	if h.note != "" {
		defer m.tr.notice(levelInfo, h.note)
	}
	if h.subErr != nil {
		m.tr.notice(levelWarn, "load the sub-agents' steps: "+h.subErr.Error())
	}
	subs := byCall(h.subs)
	for _, msg := range h.msgs {
		for _, b := range msg.Content {
			m.historyBlock(msg.Role, b)
			if run, ok := subs[b.ID]; ok && b.Type == message.ToolUse {
				if it := m.tr.byTool[b.ID]; it != nil && it.tool != nil {
					m.historySub(it, it.tool, run)
				}
			}
		}
	}
	m.tr.endStreams()
}

// historySub nests a stored sub-agent's calls in card (of item it), as its
// live events did; its text, shown live only until the call's result
// replaced it, is left out.
func (m *model) historySub(it *item, card *toolCard, run session.SubagentRun) {
	subs := byCall(run.Subagents)
	for _, msg := range run.Messages {
		for _, b := range msg.Content {
			switch b.Type {
			case message.ToolUse:
				c := &toolCard{id: b.ID, name: b.Name, input: b.Input, state: toolInterrupted, parent: card}
				card.children = append(card.children, c)
				m.tr.byTool[b.ID] = it // as live: updates to the child redraw the top card
				if sub, ok := subs[b.ID]; ok {
					m.historySub(it, c, sub)
				}
			case message.ToolResult:
				if _, c := m.card(b.ToolUseID); c != nil {
					setResult(c, b)
				}
			}
		}
	}
	it.touch()
}

// byCall indexes sub-agent runs by the call that started them.
func byCall(runs []session.SubagentRun) map[string]session.SubagentRun {
	out := make(map[string]session.SubagentRun, len(runs))
	for _, r := range runs {
		out[r.Session.ParentToolUseID] = r
	}
	return out
}

func (m *model) historyBlock(role message.Role, b message.Block) {
	tr := m.tr
	b.Text = sanitize(b.Text, true)
	switch b.Type {
	case message.Text:
		if strings.TrimSpace(b.Text) == "" {
			return
		}
		if role == message.User {
			tr.add(&item{kind: kindUser, text: b.Text})
		} else {
			tr.add(&item{kind: kindAssistant, text: b.Text})
		}
	case message.Thinking:
		if b.Text != "" {
			tr.add(&item{kind: kindThinking, text: b.Text})
		}
	case message.ToolUse:
		c := &toolCard{id: b.ID, name: b.Name, input: b.Input, state: toolInterrupted}
		tr.byTool[b.ID] = tr.add(&item{kind: kindTool, tool: c})
	case message.ToolResult:
		it := tr.byTool[b.ToolUseID]
		if it == nil || it.tool == nil || it.tool.id != b.ToolUseID {
			return
		}
		setResult(it.tool, b)
		it.touch()
	}
}

// setResult finishes a card with a stored tool_result.
func setResult(c *toolCard, b message.Block) {
	var out strings.Builder
	for _, part := range b.Content {
		if part.Type == message.Text {
			out.WriteString(sanitize(part.Text, true))
		}
	}
	c.output, c.state = out.String(), toolDone
	if b.IsError {
		c.state = toolFailed
	}
}
