package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// promptBuilder turns tandem's conversation into Chat Completions messages
// for one adapter. name is the adapter's provider name: thinking blocks are
// only sent back to the provider that produced them, because
// reasoning_content is meaningless elsewhere.
type promptBuilder struct {
	name string
	kind string
}

// messages converts System and Messages.
func (b promptBuilder) messages(system []string, msgs []message.Message) ([]chatMessage, error) {
	out := make([]chatMessage, 0, len(msgs)+1)
	if sys, ok := systemMessage(system); ok {
		out = append(out, sys)
	}
	for i, m := range msgs {
		var conv []chatMessage
		var err error
		switch m.Role {
		case message.User:
			conv, err = b.user(m)
		case message.Assistant:
			conv = b.assistant(m)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("message %d (%s): %w", i, m.ID, err)
		}
		out = append(out, conv...)
	}
	return out, nil
}

// systemMessage joins the non-blank system texts into one message.
func systemMessage(system []string) (chatMessage, bool) {
	var parts []string
	for _, s := range system {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return chatMessage{}, false
	}
	return chatMessage{Role: "system", Content: strings.Join(parts, "\n")}, true
}

// user splits a user message into tool messages (the tool results, which
// must directly follow the assistant's tool calls) and a plain user message
// with the rest. Tool messages carry only text, so the images of results
// follow in the user message, before its own content.
func (b promptBuilder) user(m message.Message) ([]chatMessage, error) {
	var out []chatMessage
	var resultImages, parts []contentPart
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				parts = append(parts, contentPart{Type: "text", Text: blk.Text})
			}
		case message.Image:
			p, err := imagePart(blk)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		case message.ToolResult:
			res, images, err := toolResult(blk)
			if err != nil {
				return nil, err
			}
			out = append(out, res)
			resultImages = append(resultImages, images...)
		default:
			// thinking or tool_use in a user message cannot be sent; skip.
		}
	}
	parts = append(resultImages, parts...)
	switch {
	case len(parts) == 1 && parts[0].Type == "text":
		out = append(out, chatMessage{Role: "user", Content: parts[0].Text})
	case len(parts) > 0:
		out = append(out, chatMessage{Role: "user", Content: parts})
	}
	return out, nil
}

// imagePart is an image as a data URL. The data is decoded and encoded
// again, so that what is sent is canonical base64 whatever was stored.
func imagePart(blk message.Block) (contentPart, error) {
	data, err := base64.StdEncoding.DecodeString(blk.ImageData)
	if err != nil {
		return contentPart{}, fmt.Errorf("image block: data is not base64: %w", err)
	}
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + mediaType(blk) + ";base64," + base64.StdEncoding.EncodeToString(data)}}, nil
}

func mediaType(blk message.Block) string {
	if blk.MediaType == "" {
		return "image/png"
	}
	return blk.MediaType
}

// toolResult converts a tool_result block to a tool message, and its
// images to parts for the user message that follows. A result of images
// alone says so, since the tool message cannot be empty.
func toolResult(blk message.Block) (chatMessage, []contentPart, error) {
	var texts []string
	var images []contentPart
	firstType := ""
	for _, c := range blk.Content {
		switch c.Type {
		case message.Text:
			if c.Text != "" {
				texts = append(texts, c.Text)
			}
		case message.Image:
			p, err := imagePart(c)
			if err != nil {
				return chatMessage{}, nil, fmt.Errorf("tool result %s: %w", blk.ToolUseID, err)
			}
			if len(images) == 0 {
				firstType = mediaType(c)
			}
			images = append(images, p)
		}
	}
	text := strings.Join(texts, "\n")
	switch {
	case text != "":
	case len(images) > 0:
		text = fmt.Sprintf("The tool returned %s content; see the following user message.", firstType)
	case blk.IsError:
		text = "error"
	default:
		// Some servers reject empty tool messages.
		text = "(no output)"
	}
	return chatMessage{Role: "tool", Content: text, ToolCallID: blk.ToolUseID}, images, nil
}

// assistant converts an assistant message: its texts joined into one
// content string (Chat Completions has one per message), its tool calls,
// and for OpenAI-compatible servers its own reasoning. A message with
// neither text nor tool calls is dropped, as the API refuses it.
func (b promptBuilder) assistant(m message.Message) []chatMessage {
	out := chatMessage{Role: "assistant"}
	var texts []string
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				texts = append(texts, blk.Text)
			}
		case message.Thinking, message.RedactedThinking:
			if r, ok := b.reasoning(blk); ok {
				out.ReasoningContent = &r // the last one wins, as only one fits
			}
		case message.ToolUse:
			input := string(blk.Input)
			if strings.TrimSpace(input) == "" || !json.Valid(blk.Input) {
				input = "{}"
			}
			out.ToolCalls = append(out.ToolCalls, chatToolCall{ID: blk.ID, Type: "function", Function: functionCall{Name: blk.Name, Arguments: input}})
		}
	}
	if len(texts) > 0 {
		out.Content = strings.Join(texts, "\n\n")
	}
	if len(texts) == 0 && len(out.ToolCalls) == 0 {
		return nil
	}
	return []chatMessage{out}
}

// reasoning is a thinking block's text to send back, or false when it must
// not be sent: it came from another provider, or this protocol cannot carry
// it. Foreign thinking is dropped rather than sent as text: replaying
// another model's private reasoning as visible text would change what the
// conversation says.
func (b promptBuilder) reasoning(blk message.Block) (string, bool) {
	if blk.Provider != b.name || b.kind != provider.KindOpenAICompatible || blk.Type == message.RedactedThinking {
		return "", false
	}
	// Sent back as reasoning_content; some servers (Kimi, DeepSeek
	// thinking mode) require it on assistant tool-call messages.
	return blk.Text, true
}
