package cliproto

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/tandem-agent/tandem/internal/message"
)

// writer prints one JSON object per line; the SDK reads stdout line by
// line, so lines from concurrent turns, control answers and hook requests
// must never interleave.
type writer struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "system", "subtype": "error", "error": "encode message: " + err.Error()})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.out.Write(append(b, '\n'))
}

// newUUID is a random RFC 4122 version 4 id: the SDKs key messages (and
// rewind_files) by the uuid field.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// apiBlocks turns stored blocks into the Messages API's content blocks,
// which is what Claude Code's assistant and user lines carry.
func apiBlocks(blocks []message.Block) []map[string]any {
	out := make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case message.Text:
			out = append(out, map[string]any{"type": "text", "text": b.Text})
		case message.Thinking:
			out = append(out, map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.Signature})
		case message.RedactedThinking:
			out = append(out, map[string]any{"type": "redacted_thinking", "data": b.Data})
		case message.ToolUse:
			in := b.Input
			if len(in) == 0 {
				in = json.RawMessage(`{}`)
			}
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": in})
		case message.ToolResult:
			r := map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "content": resultContent(b.Content)}
			if b.IsError {
				r["is_error"] = true
			}
			out = append(out, r)
		case message.Image:
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": b.MediaType, "data": b.ImageData}})
		}
	}
	return out
}

// resultContent is a tool result's content as Claude Code sends it: a
// string when it is only text.
func resultContent(blocks []message.Block) any {
	text, only := "", true
	for _, c := range blocks {
		if c.Type != message.Text {
			only = false
			break
		}
		text += c.Text
	}
	if only {
		return text
	}
	return apiBlocks(blocks)
}

func apiUsage(u *message.Usage) map[string]any {
	if u == nil {
		u = &message.Usage{}
	}
	return map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
		"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheCreationTokens}
}

// assistantLine is Claude Code's "assistant" message for a stored one.
func assistantLine(m message.Message, sessionID, model string) map[string]any {
	id := m.ID
	if id == "" {
		id = "msg_" + newUUID()
	}
	stop := "end_turn"
	for _, b := range m.Content {
		if b.Type == message.ToolUse {
			stop = "tool_use"
		}
	}
	return map[string]any{
		"type": "assistant",
		"message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": cmp.Or(m.Model, model),
			"content": apiBlocks(m.Content), "stop_reason": stop, "stop_sequence": nil, "usage": apiUsage(m.Usage)},
		"parent_tool_use_id": nil, "session_id": sessionID, "uuid": newUUID(),
	}
}

// userLine is Claude Code's "user" message echoing tool results; other
// user messages (the prompt itself) are not echoed, as in Claude Code.
func userLine(m message.Message, sessionID string) (map[string]any, bool) {
	hasResult := false
	for _, b := range m.Content {
		hasResult = hasResult || b.Type == message.ToolResult
	}
	if !hasResult {
		return nil, false
	}
	return map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": apiBlocks(m.Content)},
		"parent_tool_use_id": nil, "session_id": sessionID, "uuid": newUUID(),
	}, true
}
