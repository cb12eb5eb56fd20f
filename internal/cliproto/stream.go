package cliproto

import (
	"encoding/json"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// partials rebuilds the Messages API's streaming events (message_start,
// content_block_*, message_delta, message_stop) from tandem's deltas, for
// --include-partial-messages.
type partials struct {
	mu        sync.Mutex
	w         *writer
	sessionID func() string
	model     func() string

	open  bool   // a message has started
	block string // type of the open content block ("" when none)
	index int    // index of the open (or next) block
}

func (p *partials) emit(ev map[string]any) {
	p.w.line(map[string]any{"type": "stream_event", "event": ev, "parent_tool_use_id": nil,
		"session_id": p.sessionID(), "uuid": newUUID()})
}

func (p *partials) startMessage() {
	if p.open {
		return
	}
	p.open, p.index, p.block = true, 0, ""
	p.emit(map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_" + newUUID(), "type": "message",
		"role": "assistant", "model": p.model(), "content": []any{}, "stop_reason": nil, "usage": apiUsage(nil)}})
}

func (p *partials) closeBlock() {
	if p.block != "" {
		p.emit(map[string]any{"type": "content_block_stop", "index": p.index})
		p.index++
		p.block = ""
	}
}

func (p *partials) openBlock(kind string, start map[string]any) {
	if p.block == kind && kind != "tool_use" {
		return
	}
	p.closeBlock()
	p.block = kind
	p.emit(map[string]any{"type": "content_block_start", "index": p.index, "content_block": start})
}

// onEvent handles one tandem event.
func (p *partials) onEvent(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Type {
	case event.Text:
		if e.Text == "" {
			return
		}
		p.startMessage()
		p.openBlock("text", map[string]any{"type": "text", "text": ""})
		p.emit(map[string]any{"type": "content_block_delta", "index": p.index, "delta": map[string]any{"type": "text_delta", "text": e.Text}})
	case event.Thinking:
		p.startMessage()
		p.openBlock("thinking", map[string]any{"type": "thinking", "thinking": "", "signature": ""})
		if e.Text != "" {
			p.emit(map[string]any{"type": "content_block_delta", "index": p.index, "delta": map[string]any{"type": "thinking_delta", "thinking": e.Text}})
		}
		if e.Signature != "" {
			p.emit(map[string]any{"type": "content_block_delta", "index": p.index, "delta": map[string]any{"type": "signature_delta", "signature": e.Signature}})
		}
	case event.ToolUse:
		p.startMessage()
		p.openBlock("tool_use", map[string]any{"type": "tool_use", "id": e.ToolUseID, "name": e.ToolName, "input": map[string]any{}})
		in := e.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		p.emit(map[string]any{"type": "content_block_delta", "index": p.index, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
	}
}

// onAssistant ends the streamed message when the whole one is stored.
func (p *partials) onAssistant(m message.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.open {
		return
	}
	p.closeBlock()
	stop := "end_turn"
	for _, b := range m.Content {
		if b.Type == message.ToolUse {
			stop = "tool_use"
		}
	}
	p.emit(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": apiUsage(m.Usage)})
	p.emit(map[string]any{"type": "message_stop"})
	p.open = false
}
