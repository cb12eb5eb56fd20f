package tui

import (
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
)

// showHistory draws a resumed session's stored conversation.
func (m *model) showHistory(h historyMsg) {
	if h.err != nil {
		m.tr.notice(levelError, "load the conversation: "+h.err.Error())
		return
	}
	if len(h.msgs) > 0 {
		m.tr.notice(levelInfo, "Resumed session "+m.info.ID+suffix(": ", m.info.Title))
	}
	for _, msg := range h.msgs {
		for _, b := range msg.Content {
			m.historyBlock(msg.Role, b)
		}
	}
	m.tr.endStreams()
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
		if it == nil || it.tool == nil {
			return
		}
		var out strings.Builder
		for _, c := range b.Content {
			if c.Type == message.Text {
				out.WriteString(sanitize(c.Text, true))
			}
		}
		it.tool.output, it.tool.state = out.String(), toolDone
		if b.IsError {
			it.tool.state = toolFailed
		}
		it.touch()
	}
}
