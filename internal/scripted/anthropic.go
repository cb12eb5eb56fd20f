package scripted

import (
	"encoding/json"
	"net/http"
)

// Wire shapes of the Anthropic Messages API, field order as the real API
// sends them.

type aUsage struct {
	InputTokens              int64           `json:"input_tokens"`
	CacheCreationInputTokens int64           `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64           `json:"cache_read_input_tokens"`
	CacheCreation            *aCacheCreation `json:"cache_creation,omitempty"`
	OutputTokens             int64           `json:"output_tokens"`
	ServiceTier              string          `json:"service_tier,omitempty"`
}

type aCacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

type aBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type aMessage struct {
	Model        string   `json:"model"`
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Role         string   `json:"role"`
	Content      []aBlock `json:"content"`
	StopReason   *string  `json:"stop_reason"`
	StopSequence *string  `json:"stop_sequence"`
	Usage        aUsage   `json:"usage"`
}

type aDelta struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	Thinking    *string `json:"thinking,omitempty"`
	Signature   *string `json:"signature,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
}

type aEvent struct {
	Type         string        `json:"type"`
	Message      *aMessage     `json:"message,omitempty"`
	Index        *int          `json:"index,omitempty"`
	ContentBlock *aBlock       `json:"content_block,omitempty"`
	Delta        any           `json:"delta,omitempty"`
	Usage        *aUsage       `json:"usage,omitempty"`
	Error        *anthropicErr `json:"error,omitempty"`
}

type aMessageDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

func ptr[T any](v T) *T { return &v }

func (rep reply) anthropicUsage(full bool) aUsage {
	u := aUsage{
		InputTokens:              rep.usage.InputTokens,
		CacheCreationInputTokens: rep.usage.CacheCreationInputTokens,
		CacheReadInputTokens:     rep.usage.CacheReadInputTokens,
		OutputTokens:             rep.usage.OutputTokens,
	}
	if full {
		u.CacheCreation = &aCacheCreation{Ephemeral5m: rep.usage.CacheCreationInputTokens}
		u.ServiceTier = "standard"
	}
	return u
}

// anthropicBlocks is the reply's content in order: thinking, text, tool uses.
func (rep reply) anthropicBlocks() []aBlock {
	var blocks []aBlock
	if rep.thinking != "" {
		blocks = append(blocks, aBlock{Type: "thinking", Thinking: ptr(rep.thinking), Signature: ptr(rep.signature)})
	}
	if rep.text != "" || (rep.thinking == "" && len(rep.calls) == 0) {
		blocks = append(blocks, aBlock{Type: "text", Text: ptr(rep.text)})
	}
	for _, c := range rep.calls {
		blocks = append(blocks, aBlock{Type: "tool_use", ID: c.id, Name: c.name, Input: json.RawMessage(c.input)})
	}
	return blocks
}

func (rep reply) messageID() string {
	if rep.id != "" {
		return rep.id
	}
	return newMessageID()
}

func anthropicMessage(rep reply) aMessage {
	return aMessage{
		Model: rep.model, ID: rep.messageID(), Type: "message", Role: "assistant",
		Content: rep.anthropicBlocks(), StopReason: ptr(rep.stopReason),
		Usage: rep.anthropicUsage(true),
	}
}

// anthropicEvents is the full SSE sequence for a reply.
func anthropicEvents(rep reply) []aEvent {
	start := aMessage{
		Model: rep.model, ID: rep.messageID(), Type: "message", Role: "assistant",
		Content: []aBlock{}, Usage: rep.anthropicUsage(true),
	}
	start.Usage.OutputTokens = 1
	events := []aEvent{{Type: "message_start", Message: &start}}
	for i, b := range rep.anthropicBlocks() {
		idx := ptr(i)
		begin := func(cb aBlock) {
			events = append(events, aEvent{Type: "content_block_start", Index: idx, ContentBlock: &cb})
			if i == 0 {
				// The real API pings right after the first block starts.
				events = append(events, aEvent{Type: "ping"})
			}
		}
		delta := func(d aDelta) { events = append(events, aEvent{Type: "content_block_delta", Index: idx, Delta: d}) }
		switch b.Type {
		case "thinking":
			begin(aBlock{Type: "thinking", Thinking: ptr(""), Signature: ptr("")})
			for _, piece := range splitChunks(*b.Thinking, rep.chunkSize) {
				delta(aDelta{Type: "thinking_delta", Thinking: ptr(piece)})
			}
			delta(aDelta{Type: "signature_delta", Signature: b.Signature})
		case "text":
			begin(aBlock{Type: "text", Text: ptr("")})
			for _, piece := range splitChunks(*b.Text, rep.chunkSize) {
				delta(aDelta{Type: "text_delta", Text: ptr(piece)})
			}
		case "tool_use":
			begin(aBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage(`{}`)})
			delta(aDelta{Type: "input_json_delta", PartialJSON: ptr("")})
			for _, piece := range splitChunks(string(b.Input), rep.chunkSize) {
				delta(aDelta{Type: "input_json_delta", PartialJSON: ptr(piece)})
			}
		}
		events = append(events, aEvent{Type: "content_block_stop", Index: idx})
	}
	usage := rep.anthropicUsage(false)
	events = append(events,
		aEvent{Type: "message_delta", Delta: aMessageDelta{StopReason: rep.stopReason}, Usage: &usage},
		aEvent{Type: "message_stop"},
	)
	return events
}

// writeAnthropicStream streams the reply as Anthropic SSE. A mid-stream
// fault sends about half of the events, then an error event, and ends.
func writeAnthropicStream(w http.ResponseWriter, out *sink, rep reply, midStream bool, errBody json.RawMessage) error {
	events := anthropicEvents(rep)
	if midStream {
		cut := max(len(events)/2, 3) // at least message_start, a block start and a ping
		events = events[:min(cut, len(events)-2)]
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	setRequestID(w)
	w.WriteHeader(http.StatusOK)
	for _, ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if err := out.write(sseEvent(ev.Type, data)); err != nil {
			return err
		}
	}
	if midStream {
		data := []byte(errBody)
		if len(data) == 0 {
			data, _ = json.Marshal(aEvent{Type: "error", Error: &anthropicErr{Type: "overloaded_error", Message: "Overloaded"}})
		}
		return out.write(sseEvent("error", data))
	}
	return nil
}

// sseEvent frames one server-sent event; an empty name gives a data-only
// event (OpenAI style).
func sseEvent(name string, data []byte) []byte {
	b := make([]byte, 0, len(name)+len(data)+16)
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, '\n', '\n')
}
