package claudecode

import (
	"encoding/json"
	"sort"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// subConversation is one sub-agent's messages as the CLI reports them
// (frames with its parent_tool_use_id), merged like the main thread's.
type subConversation struct {
	m          *Mapper
	pending    *message.Message
	pendingSrc string
	done       []message.Message
}

func (m *Mapper) sub(parent string) *subConversation {
	if m.subs == nil {
		m.subs = map[string]*subConversation{}
	}
	sc := m.subs[parent]
	if sc == nil {
		sc = &subConversation{m: m}
		m.subs[parent] = sc
	}
	return sc
}

func (sc *subConversation) flush() {
	if sc.pending != nil {
		sc.done = append(sc.done, *sc.pending)
		sc.pending = nil
	}
}

func (sc *subConversation) addUser(msg message.Message) {
	sc.flush()
	if msg.ID == "" {
		msg.ID = newID("msg_user_")
	}
	sc.done = append(sc.done, msg)
}

// mapSubAssistant maps a sub-agent's assistant frame: its text and tool
// calls are forwarded with parent_tool_use_id (its deltas are not: the CLI
// streams only the main thread's), and the message is kept for the child
// session.
func (m *Mapper) mapSubAssistant(parent string, am *APIMessage) []event.Event {
	sc := m.sub(parent)
	if sc.pending == nil || sc.pendingSrc != am.ID {
		sc.flush()
		sc.pending = &message.Message{ID: message.NewID(), ProviderID: am.ID, Role: message.Assistant, Model: am.Model, CreatedAt: m.now()}
		sc.pendingSrc = am.ID
	}
	if am.Usage != nil {
		u := toUsage(*am.Usage)
		sc.pending.Usage = &u
	}
	var out []event.Event
	for _, b := range am.Blocks() {
		switch b.Type {
		case "text":
			sc.pending.Content = append(sc.pending.Content, message.TextBlock(b.Text))
			if b.Text != "" {
				out = append(out, event.Event{Type: event.Text, Text: b.Text, MessageID: am.ID, ParentToolUseID: parent})
			}
		case "tool_use":
			input := b.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			m.toolNames[b.ID] = b.Name
			sc.pending.Content = append(sc.pending.Content, message.Block{Type: message.ToolUse, ID: b.ID, Name: b.Name, Input: input})
			out = append(out, event.Event{Type: event.ToolUse, ToolUseID: b.ID, ToolName: b.Name, Input: input, MessageID: am.ID, ParentToolUseID: parent})
		case "thinking":
			sc.pending.Content = append(sc.pending.Content, message.Block{Type: message.Thinking, Text: b.Thinking, Signature: b.Signature, Provider: m.Provider})
		}
	}
	return out
}

// ChildMessages are a sub-agent's completed messages.
type ChildMessages struct {
	ParentToolUseID string
	Messages        []message.Message
}

// TakeChildMessages returns the sub-agents' completed messages, by the
// Agent call that started each, and forgets them.
func (m *Mapper) TakeChildMessages() []ChildMessages {
	var out []ChildMessages
	for parent, sc := range m.subs {
		if len(sc.done) > 0 {
			out = append(out, ChildMessages{ParentToolUseID: parent, Messages: sc.done})
			sc.done = nil
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ParentToolUseID < out[j].ParentToolUseID })
	return out
}

// noteAgentCall remembers what an Agent (Task) call asked for, to title
// the child session.
func (m *Mapper) noteAgentCall(id, name string, input json.RawMessage) {
	if name != "Agent" && name != "Task" {
		return
	}
	var in struct {
		Description  string `json:"description"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(input, &in)
	if in.SubagentType == "" {
		in.SubagentType = "general-purpose"
	}
	if m.titles == nil {
		m.titles = map[string]string{}
	}
	m.titles[id] = in.SubagentType + ": " + in.Description
}

// SubTitle is the title for the child session of an Agent call.
func (m *Mapper) SubTitle(parent string) string {
	if t := m.titles[parent]; t != "" {
		return t
	}
	return "sub-agent " + parent
}

// noteAgentResult adds a finished sub-agent's usage, from the Agent
// call's tool_use_result (AgentOutput), to the turn's.
func (m *Mapper) noteAgentResult(toolName string, raw json.RawMessage) {
	if (toolName != "Agent" && toolName != "Task") || len(raw) == 0 {
		return
	}
	var out struct {
		Status string    `json:"status"`
		Usage  *APIUsage `json:"usage"`
	}
	if json.Unmarshal(raw, &out) != nil || out.Usage == nil || out.Status != "completed" {
		return
	}
	m.subUsage = m.subUsage.Add(toUsage(*out.Usage))
}
