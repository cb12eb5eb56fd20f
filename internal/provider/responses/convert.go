package responses

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// reasoningItem is what a thinking block from the Responses API keeps in
// its signature: the reasoning item's id and encrypted content, which go
// back to the API verbatim on later calls.
type reasoningItem struct {
	ID               string `json:"id"`
	EncryptedContent string `json:"encrypted_content,omitempty"`
}

// responsesInput turns the conversation into Responses input items, in
// order: a reasoning item stays right before the output it led to.
func responsesInput(name string, req provider.Request) []map[string]any {
	var out []map[string]any
	for _, m := range req.Messages {
		if m.Role == message.Assistant {
			out = append(out, assistantItems(name, m.Content)...)
			continue
		}
		out = append(out, userItems(m.Content)...)
	}
	return out
}

func assistantItems(name string, blocks []message.Block) []map[string]any {
	var out []map[string]any
	for _, b := range blocks {
		switch b.Type {
		case message.Thinking:
			// Reasoning goes back only to the API that produced it, and
			// only with its encrypted content: with store=false the API
			// keeps nothing, so a bare item id would be "not found".
			var ri reasoningItem
			if b.Provider != name || json.Unmarshal([]byte(b.Signature), &ri) != nil || ri.ID == "" || ri.EncryptedContent == "" {
				continue
			}
			summary := []map[string]any{}
			if b.Text != "" {
				summary = append(summary, map[string]any{"type": "summary_text", "text": b.Text})
			}
			item := map[string]any{"type": "reasoning", "id": ri.ID, "summary": summary}
			if ri.EncryptedContent != "" {
				item["encrypted_content"] = ri.EncryptedContent
			}
			out = append(out, item)
		case message.Text:
			if b.Text == "" {
				continue
			}
			out = append(out, map[string]any{"type": "message", "role": "assistant",
				"content": []map[string]any{{"type": "output_text", "text": b.Text}}})
		case message.ToolUse:
			args := string(b.Input)
			if args == "" || !json.Valid(b.Input) {
				args = "{}"
			}
			out = append(out, map[string]any{"type": "function_call", "call_id": b.ID, "name": b.Name, "arguments": args})
		}
	}
	return out
}

// userItems puts tool results first (each answers a function_call of the
// turn before), then the user's own text and images.
func userItems(blocks []message.Block) []map[string]any {
	var out []map[string]any
	var content []map[string]any
	for _, b := range blocks {
		switch b.Type {
		case message.ToolResult:
			text, images := "", []map[string]any(nil)
			for _, c := range b.Content {
				switch c.Type {
				case message.Text:
					text += c.Text
				case message.Image:
					images = append(images, inputImage(c))
				}
			}
			if b.IsError {
				text = "Error: " + text
			}
			out = append(out, map[string]any{"type": "function_call_output", "call_id": b.ToolUseID, "output": text})
			if len(images) > 0 {
				// A function output is text: its images follow as the user's.
				content = append(content, images...)
			}
		case message.Text:
			if b.Text != "" {
				content = append(content, map[string]any{"type": "input_text", "text": b.Text})
			}
		case message.Image:
			content = append(content, inputImage(b))
		}
	}
	if len(content) > 0 {
		out = append(out, map[string]any{"type": "message", "role": "user", "content": content})
	}
	return out
}

func inputImage(b message.Block) map[string]any {
	return map[string]any{"type": "input_image", "image_url": "data:" + b.MediaType + ";base64," + b.ImageData}
}
