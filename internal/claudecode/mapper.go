package claudecode

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/runtimes"
)

// runtimeName is what status events and Runtime.Name report.
const runtimeName = string(runtimes.ClaudeCode)

// Mapper turns the CLI's parsed stdout messages into tandem events and
// stored messages. It has no I/O: feed it messages in order with Map, and
// take the finished conversation messages with TakeMessages. One Mapper
// serves one CLI process.
type Mapper struct {
	// Mode is tandem's permission mode, reported in the status event
	// (the CLI's own mode is always "default" under tandem).
	Mode string
	// Provider stamps thinking blocks (their signatures are only valid
	// there).
	Provider string
	// Now stamps stored messages; nil means time.Now.
	Now func() time.Time

	initSeen  bool
	streamed  map[string]bool   // message ids whose text/thinking came as deltas
	toolNames map[string]string // tool_use_id -> tool name
	errTexts  map[string]string // tool_use_id -> error result text (denial reasons)
	pending   *message.Message  // assistant message being merged from split lines
	// pendingSrc is the API message id pending is merged from.
	pendingSrc string
	done       []message.Message
	// subs are sub-agent conversations by the Agent call that started
	// them (the frames' parent_tool_use_id).
	subs   map[string]*subConversation
	titles map[string]string // Agent call id -> "type: description"
	// subUsage sums what the CLI reported the turn's sub-agents spent; its
	// result's usage counts only the main thread.
	subUsage message.Usage
	// retryStatus is the HTTP status of the last api_retry, which a
	// model_fallback that follows reports as its cause.
	retryStatus int
}

// MapAll maps a whole recorded stream; a convenience for tests and tools.
func MapAll(msgs []Msg) []event.Event {
	var m Mapper
	var out []event.Event
	for _, msg := range msgs {
		out = append(out, m.Map(msg)...)
	}
	return out
}

func (m *Mapper) init() {
	if m.streamed == nil {
		m.streamed = map[string]bool{}
		m.toolNames = map[string]string{}
		m.errTexts = map[string]string{}
	}
}

func (m *Mapper) now() time.Time {
	if m.Now != nil {
		return m.Now().UTC()
	}
	return time.Now().UTC()
}

// Map returns the events for one message (often none). Unknown types and
// subtypes map to nothing.
func (m *Mapper) Map(msg Msg) []event.Event {
	m.init()
	switch msg.Type {
	case "system":
		return m.mapSystem(msg)
	case "stream_event":
		return m.mapStream(msg)
	case "assistant":
		return m.mapAssistant(msg)
	case "user":
		return m.mapUser(msg)
	case "result":
		return []event.Event{m.mapResult(msg)}
	}
	return nil
}

// TakeMessages returns the conversation messages completed so far (an
// assistant message is complete when something other than its own lines
// follows it) and forgets them.
func (m *Mapper) TakeMessages() []message.Message {
	out := m.done
	m.done = nil
	return out
}

// Flush completes the assistant message in progress, if any (the stream
// ended without a result).
func (m *Mapper) Flush() {
	m.flush()
}

func (m *Mapper) flush() {
	for _, sc := range m.subs {
		sc.flush()
	}
	if m.pending != nil {
		m.done = append(m.done, *m.pending)
		m.pending = nil
	}
}

func (m *Mapper) mapSystem(msg Msg) []event.Event {
	switch msg.Subtype {
	case "init":
		if m.initSeen {
			return nil
		}
		m.initSeen = true
		return []event.Event{{
			Type: event.Status, Cwd: msg.Cwd, Model: msg.Model, Runtime: runtimeName,
			Tools: msg.Tools, Mode: m.Mode,
			Meta: map[string]any{"claude_session_id": msg.SessionID, "claude_code_version": msg.ClaudeCodeVersion},
		}}
	case "api_retry":
		e := event.Event{Type: event.Retry, Attempt: msg.Attempt, DelayMS: msg.RetryDelayMS, Error: msg.errorString()}
		if msg.ErrorStatus != nil {
			e.HTTPStatus = *msg.ErrorStatus
		}
		m.retryStatus = e.HTTPStatus
		return []event.Event{e}
	case "model_fallback":
		// The event the native runtime emits when it moves on to a
		// fallback model: a retry naming the model that answers from now
		// on (the stored messages then carry it too).
		return []event.Event{{Type: event.Retry, Model: msg.FallbackModel, HTTPStatus: m.retryStatus,
			Error:   cmp.Or(msg.Trigger, "the model failed"),
			Message: fmt.Sprintf("%s failed; falling back to %s", msg.OriginalModel, msg.FallbackModel)}}
	case "compact_boundary":
		// The same event the native runtime emits; the CLI keeps the
		// conversation itself, so no boundary message is stored here.
		e := event.Event{Type: event.CompactBoundary, Trigger: "auto"}
		if cm := msg.CompactMetadata; cm != nil {
			e.Trigger = cmp.Or(cm.Trigger, e.Trigger)
			e.TokensBefore, e.TokensAfter = cm.PreTokens, cm.PostTokens
		}
		return []event.Event{e}
	}
	return nil
}

func (m *Mapper) mapStream(msg Msg) []event.Event {
	ev := msg.Event
	if ev == nil || msg.ParentToolUseID != nil {
		return nil
	}
	id := msg.APIMessageID
	switch ev.Type {
	case "message_delta":
		// The final output token count arrives here, after the assistant
		// lines that carried the message_start estimate.
		if ev.Usage != nil && m.pending != nil && m.pendingSrc == id && m.pending.Usage != nil {
			m.pending.Usage.OutputTokens = ev.Usage.OutputTokens
		}
		return nil
	case "content_block_delta":
	default:
		return nil
	}
	d := ev.Delta
	if d == nil {
		return nil
	}
	switch d.Type {
	case "text_delta":
		m.streamed[id] = true
		return []event.Event{{Type: event.Text, Text: d.Text, MessageID: id}}
	case "thinking_delta":
		m.streamed[id] = true
		return []event.Event{{Type: event.Thinking, Text: d.Thinking, MessageID: id}}
	case "signature_delta":
		m.streamed[id] = true
		return []event.Event{{Type: event.Thinking, Signature: d.Signature, MessageID: id}}
	}
	return nil
}

func (m *Mapper) mapAssistant(msg Msg) []event.Event {
	am := msg.Message
	if am == nil {
		return nil
	}
	if msg.ParentToolUseID != nil {
		return m.mapSubAssistant(*msg.ParentToolUseID, am)
	}
	if m.pending == nil || m.pendingSrc != am.ID {
		m.flush()
		m.pending = &message.Message{ID: message.NewID(), ProviderID: am.ID, Role: message.Assistant, Model: am.Model, CreatedAt: m.now()}
		m.pendingSrc = am.ID
	}
	if am.Usage != nil {
		u := toUsage(*am.Usage)
		if m.pending.Usage != nil && m.pending.Usage.OutputTokens > u.OutputTokens {
			u.OutputTokens = m.pending.Usage.OutputTokens
		}
		m.pending.Usage = &u
	}
	var out []event.Event
	for _, b := range am.Blocks() {
		blk, ev, ok := m.assistantBlock(am.ID, b)
		if !ok {
			continue
		}
		m.pending.Content = append(m.pending.Content, blk)
		if ev != nil {
			out = append(out, *ev)
		}
	}
	return out
}

// assistantBlock converts one block; the event is nil when the block's
// content was already streamed as deltas.
func (m *Mapper) assistantBlock(id string, b APIBlock) (message.Block, *event.Event, bool) {
	streamed := m.streamed[id]
	switch b.Type {
	case "text":
		blk := message.TextBlock(b.Text)
		if streamed || b.Text == "" {
			return blk, nil, true
		}
		return blk, &event.Event{Type: event.Text, Text: b.Text, MessageID: id}, true
	case "thinking":
		blk := message.Block{Type: message.Thinking, Text: b.Thinking, Signature: b.Signature, Provider: m.Provider}
		if streamed {
			return blk, nil, true
		}
		return blk, &event.Event{Type: event.Thinking, Text: b.Thinking, Signature: b.Signature, MessageID: id}, true
	case "redacted_thinking":
		return message.Block{Type: message.RedactedThinking, Data: b.Data, Provider: m.Provider}, nil, true
	case "tool_use":
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		m.toolNames[b.ID] = b.Name
		m.noteAgentCall(b.ID, b.Name, input)
		blk := message.Block{Type: message.ToolUse, ID: b.ID, Name: b.Name, Input: input}
		return blk, &event.Event{Type: event.ToolUse, ToolUseID: b.ID, ToolName: b.Name, Input: input, MessageID: id}, true
	}
	return message.Block{}, nil, false
}

func (m *Mapper) mapUser(msg Msg) []event.Event {
	um := msg.Message
	if um == nil {
		return nil
	}
	var parent string
	if msg.ParentToolUseID != nil {
		parent = *msg.ParentToolUseID
	}
	var out []event.Event
	var blocks []message.Block
	for _, b := range um.Blocks() {
		if b.Type == "text" && parent != "" {
			blocks = append(blocks, message.TextBlock(b.Text)) // the sub-agent's prompt
			continue
		}
		if b.Type != "tool_result" {
			continue
		}
		text := toolResultText(b.Content)
		if b.IsError {
			m.errTexts[b.ToolUseID] = text
		}
		ev := event.Event{Type: event.ToolResult, ToolUseID: b.ToolUseID, ToolName: m.toolNames[b.ToolUseID], Output: text, IsError: b.IsError, ParentToolUseID: parent}
		ev.Diff, ev.Meta = resultExtras(msg.ToolUseResult)
		if parent == "" {
			m.noteAgentResult(m.toolNames[b.ToolUseID], msg.ToolUseResult)
		}
		out = append(out, ev)
		blocks = append(blocks, message.Block{Type: message.ToolResult, ToolUseID: b.ToolUseID,
			Content: []message.Block{message.TextBlock(text)}, IsError: b.IsError, Diff: ev.Diff})
	}
	if len(blocks) == 0 {
		return out
	}
	if parent != "" {
		m.sub(parent).addUser(message.Message{ID: message.NewID(), ProviderID: msg.UUID, Role: message.User, Content: blocks, CreatedAt: m.now()})
		return out
	}
	m.flush()
	m.done = append(m.done, message.Message{ID: message.NewID(), ProviderID: msg.UUID, Role: message.User, Content: blocks, CreatedAt: m.now()})
	return out
}

// TurnCost is the cost of the turn a result ends. total_cost_usd is
// cumulative over a resumed session, so the per-result model usage is
// preferred when present.
func TurnCost(msg Msg) *float64 {
	if len(msg.SinceLastResult) > 0 {
		var sum float64
		for _, mc := range msg.SinceLastResult {
			sum += mc.CostUSD
		}
		return &sum
	}
	return msg.TotalCostUSD
}

func (m *Mapper) mapResult(msg Msg) event.Event {
	cost := TurnCost(msg)
	if m.pending != nil && cost != nil {
		c := *cost
		m.pending.CostUSD = &c
	}
	m.flush()
	e := event.Event{
		Type: event.Result, Subtype: resultSubtype(msg), Result: msg.Result, IsError: msg.IsError,
		CostUSD: cost, DurationMS: msg.DurationMS, NumTurns: msg.NumTurns,
		StructuredOutput: compactJSON(msg.StructuredOutput),
	}
	if msg.Usage != nil {
		u := toUsage(*msg.Usage).Add(m.subUsage)
		e.Usage = &u
	}
	m.subUsage = message.Usage{}
	if msg.IsError {
		e.Error = strings.Join(msg.Errors, "; ")
		if e.Error == "" {
			e.Error = msg.Result
		}
	}
	for _, d := range msg.PermissionDenials {
		e.PermissionDenials = append(e.PermissionDenials, event.Denial{
			ToolName: d.ToolName, ToolUseID: d.ToolUseID, ToolInput: d.ToolInput, Reason: m.errTexts[d.ToolUseID],
		})
	}
	return e
}

// resultSubtype maps the CLI's result onto tandem's subtypes. An API
// failure comes as subtype success with is_error.
func resultSubtype(msg Msg) string {
	switch msg.TerminalReason {
	case "aborted_streaming", "aborted_tools":
		return event.SubtypeInterrupted
	}
	switch msg.Subtype {
	case "success":
		if msg.IsError {
			return event.SubtypeProviderError
		}
		return event.SubtypeSuccess
	case "error_max_turns":
		return event.SubtypeMaxTurns
	case "error_max_budget_usd":
		return event.SubtypeMaxBudget
	case "error_during_execution":
		return event.SubtypeError
	case "error_max_structured_output_retries":
		// The native runtime ends a turn whose answer never conformed
		// with error_during_execution too.
		return event.SubtypeError
	case "":
		return event.SubtypeError
	}
	return msg.Subtype
}

func toUsage(u APIUsage) message.Usage {
	return message.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens, CacheCreationTokens: u.CacheCreationInputTokens,
	}
}

// compactJSON is v as compact JSON, as the native runtime reports
// structured output; nil for none (or JSON null).
func compactJSON(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if len(v) == 0 || json.Compact(&b, v) != nil || b.String() == "null" {
		return nil
	}
	return b.Bytes()
}
