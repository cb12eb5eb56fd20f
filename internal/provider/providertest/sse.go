package providertest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The recordings hold both streamed and whole (non-streaming) responses.
// tandem always streams, so the whole ones are re-served as the event
// stream the same API sends for that message. The content is the
// provider's; only the framing is built here.

func sseEvent(b *strings.Builder, event string, v any) {
	data, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(b, "event: %s\n", event)
	}
	fmt.Fprintf(b, "data: %s\n\n", data)
}

// anthropicJSONToSSE turns a Messages API response into its stream.
func AnthropicJSONToSSE(body string) (string, string) {
	var msg map[string]any
	if json.Unmarshal([]byte(body), &msg) != nil {
		return body, ""
	}
	content, _ := msg["content"].([]any)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	var b strings.Builder
	sseEvent(&b, "message_start", map[string]any{"type": "message_start", "message": start})
	for i, c := range content {
		blk, _ := c.(map[string]any)
		first := map[string]any{}
		for k, v := range blk {
			first[k] = v
		}
		var delta map[string]any
		switch blk["type"] {
		case "text":
			first["text"] = ""
			delta = map[string]any{"type": "text_delta", "text": blk["text"]}
		case "thinking":
			first["thinking"], first["signature"] = "", ""
			delta = map[string]any{"type": "thinking_delta", "thinking": blk["thinking"]}
		case "tool_use":
			first["input"] = map[string]any{}
			in, _ := json.Marshal(blk["input"])
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
		}
		sseEvent(&b, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": first})
		if delta != nil {
			sseEvent(&b, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		}
		if blk["type"] == "thinking" {
			sseEvent(&b, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "signature_delta", "signature": blk["signature"]}})
		}
		sseEvent(&b, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sseEvent(&b, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil}, "usage": msg["usage"]})
	sseEvent(&b, "message_stop", map[string]any{"type": "message_stop"})
	return b.String(), "text/event-stream"
}

// openAIJSONToSSE turns a Chat Completions response into its stream.
func OpenAIJSONToSSE(body string) (string, string) {
	var resp struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]any `json:"usage"`
	}
	if json.Unmarshal([]byte(body), &resp) != nil || len(resp.Choices) == 0 {
		return body, ""
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": resp.ID, "object": "chat.completion.chunk", "model": resp.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	var b strings.Builder
	m := resp.Choices[0].Message
	first := map[string]any{"role": "assistant"}
	for _, k := range []string{"reasoning_content", "reasoning", "content"} {
		if v, ok := m[k]; ok && v != nil {
			first[k] = v
		}
	}
	sseEvent(&b, "", chunk(first, nil))
	if calls, ok := m["tool_calls"].([]any); ok {
		for i, c := range calls {
			call, _ := c.(map[string]any)
			call["index"] = i
			sseEvent(&b, "", chunk(map[string]any{"tool_calls": []any{call}}, nil))
		}
	}
	sseEvent(&b, "", chunk(map[string]any{}, resp.Choices[0].FinishReason))
	sseEvent(&b, "", map[string]any{"id": resp.ID, "object": "chat.completion.chunk", "model": resp.Model,
		"choices": []any{}, "usage": resp.Usage})
	b.WriteString("data: [DONE]\n\n")
	return b.String(), "text/event-stream"
}
