package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/trust"
)

// outputTail bounds the command output a tool card shows while it runs.
const outputTail = 8 << 10

// resultShown bounds the tool output sent with a finished call.
const resultShown = 32 << 10

// textChunk bounds the text of one message or thought chunk: a prompt of
// tens of MiB, replayed, goes as many chunks, each far under the 10 MiB a
// client on the ACP Go SDK reads in one message.
const textChunk = 1 << 20

// textUpdates sends text as chunks of at most textChunk bytes, cut between
// characters.
func textUpdates(text string, update func(string) acpsdk.SessionUpdate) []acpsdk.SessionUpdate {
	var out []acpsdk.SessionUpdate
	for len(text) > textChunk {
		cut := textChunk
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		out = append(out, update(text[:cut]))
		text = text[cut:]
	}
	return append(out, update(text))
}

// updater is a session's event sink: it turns tandem events into
// session/update notifications.
type updater struct {
	ag    *Agent
	turns *turnState
}

// Emit implements event.Sink.
func (u *updater) Emit(e event.Event) {
	if u.ag.conn == nil {
		return
	}
	updates := []acpsdk.SessionUpdate{}
	switch {
	case len(e.Text) > textChunk && e.Type == event.Text && e.ParentToolUseID == "":
		updates = textUpdates(e.Text, acpsdk.UpdateAgentMessageText)
	case len(e.Text) > textChunk && e.Type == event.Thinking && e.ParentToolUseID == "":
		updates = textUpdates(e.Text, acpsdk.UpdateAgentThoughtText)
	default:
		if upd, ok := u.convert(e); ok {
			updates = append(updates, upd)
		}
	}
	for _, upd := range updates {
		_ = u.ag.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: acpsdk.SessionId(e.SessionID), Update: upd})
	}
}

func (u *updater) convert(e event.Event) (acpsdk.SessionUpdate, bool) {
	if e.ParentToolUseID != "" && (e.Type == event.Text || e.Type == event.Thinking) {
		// A sub-agent's words are not the agent's message: its report
		// arrives as the Agent call's result. Its tool calls are shown.
		return acpsdk.SessionUpdate{}, false
	}
	switch e.Type {
	case event.Text:
		if e.Text == "" {
			return acpsdk.SessionUpdate{}, false
		}
		return acpsdk.UpdateAgentMessageText(e.Text), true
	case event.Thinking:
		if e.Text == "" { // a signature arriving at the end of a block
			return acpsdk.SessionUpdate{}, false
		}
		return acpsdk.UpdateAgentThoughtText(e.Text), true
	case event.ToolUse:
		return u.toolStart(e), true
	case event.ToolOutput:
		return u.toolOutput(e)
	case event.ToolResult:
		return u.toolResult(e), true
	case event.TaskUpdate:
		return plan(e.Todos), true
	case event.ModeChanged:
		return acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(e.Mode)}}, true
	case event.Context:
		if e.ContextWindow <= 0 {
			return acpsdk.SessionUpdate{}, false
		}
		return acpsdk.SessionUpdate{UsageUpdate: &acpsdk.SessionUsageUpdate{Used: int(e.ContextTokens), Size: int(e.ContextWindow)}}, true
	case event.CompactBoundary:
		return acpsdk.UpdateAgentThoughtText("\n[the conversation was compacted into a summary]\n"), true
	case event.Status:
		if e.Meta["notice"] == trust.NoticeKind {
			// What an untrusted folder's session runs without, once. It is
			// said as the session opens, before the client has its id
			// (an editor drops updates of a session it does not know), so
			// it waits for the session's first prompt.
			u.turns.holdNotice("[tandem: " + e.Message + "]\n\n")
		}
	case event.Retry:
		return acpsdk.UpdateAgentThoughtText(fmt.Sprintf("\n[provider error, retrying in %.1fs (attempt %d): %s]\n",
			float64(e.DelayMS)/1000, e.Attempt, e.Error)), true
	}
	return acpsdk.SessionUpdate{}, false
}

func (u *updater) toolStart(e event.Event) acpsdk.SessionUpdate {
	var input map[string]any
	_ = json.Unmarshal(e.Input, &input)
	u.turns.mu.Lock()
	u.turns.calls[e.ToolUseID] = &toolCall{name: e.ToolName, input: e.Input}
	u.turns.mu.Unlock()
	info := describeTool(u.turns.tools, e.ToolName, e.Input)
	opts := []acpsdk.ToolCallStartOpt{acpsdk.WithStartKind(info.kind), acpsdk.WithStartStatus(acpsdk.ToolCallStatusInProgress),
		acpsdk.WithStartRawInput(input)}
	if len(info.locations) > 0 {
		opts = append(opts, acpsdk.WithStartLocations(info.locations))
	}
	return acpsdk.StartToolCall(acpsdk.ToolCallId(e.ToolUseID), info.title, opts...)
}

func (u *updater) toolOutput(e event.Event) (acpsdk.SessionUpdate, bool) {
	u.turns.mu.Lock()
	c := u.turns.calls[e.ToolUseID]
	if c == nil || c.terminal != "" {
		u.turns.mu.Unlock()
		return acpsdk.SessionUpdate{}, false
	}
	c.tail = append(c.tail, e.Output...)
	if len(c.tail) > outputTail {
		c.tail = append([]byte(nil), c.tail[len(c.tail)-outputTail:]...)
	}
	tail := string(c.tail)
	u.turns.mu.Unlock()
	return acpsdk.UpdateToolCall(acpsdk.ToolCallId(e.ToolUseID), acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{
		acpsdk.ToolContent(acpsdk.TextBlock(fence(tail)))})), true
}

func (u *updater) toolResult(e event.Event) acpsdk.SessionUpdate {
	u.turns.mu.Lock()
	c := u.turns.calls[e.ToolUseID]
	delete(u.turns.calls, e.ToolUseID)
	u.turns.mu.Unlock()
	status := acpsdk.ToolCallStatusCompleted
	if e.IsError {
		status = acpsdk.ToolCallStatusFailed
	}
	var content []acpsdk.ToolCallContent
	switch {
	case c != nil && c.terminal != "":
		// The client shows the command's output in its terminal.
		content = []acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(c.terminal)}
	case c != nil && !e.IsError:
		content = diffs(u.turns.tools, c.name, c.input)
	}
	if content == nil {
		out := e.Output
		if len(out) > resultShown {
			out = out[:resultShown] + fmt.Sprintf("\n[... %d more bytes]", len(e.Output)-resultShown)
		}
		if out != "" {
			content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(fence(out)))}
		}
	}
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(status)}
	if content != nil {
		opts = append(opts, acpsdk.WithUpdateContent(content))
	}
	return acpsdk.UpdateToolCall(acpsdk.ToolCallId(e.ToolUseID), opts...)
}

// fence shows tool output verbatim (a client renders content as Markdown).
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + s + "\n" + f
}

func plan(todos []event.Todo) acpsdk.SessionUpdate {
	entries := []acpsdk.PlanEntry{}
	for _, t := range todos {
		st := acpsdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = acpsdk.PlanEntryStatusInProgress
		case "completed":
			st = acpsdk.PlanEntryStatusCompleted
		}
		entries = append(entries, acpsdk.PlanEntry{Content: t.Content, Status: st, Priority: acpsdk.PlanEntryPriorityMedium})
	}
	return acpsdk.UpdatePlan(entries...)
}
