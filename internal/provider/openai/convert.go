package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"charm.land/fantasy"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// promptBuilder turns tandem's conversation into a fantasy prompt for one
// OpenAI-protocol adapter (Anthropic has its own in package anthropic).
// name is the adapter's provider name: thinking blocks are only sent back to
// the provider that produced them, because reasoning_content is meaningless
// elsewhere.
type promptBuilder struct {
	name string
	kind string
}

// prompt converts System and Messages.
func (b promptBuilder) prompt(system []string, msgs []message.Message) (fantasy.Prompt, error) {
	out := make(fantasy.Prompt, 0, len(msgs)+1)
	if sys := systemMessage(system); sys != nil {
		out = append(out, *sys)
	}
	for i, m := range msgs {
		var conv []fantasy.Message
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

func systemMessage(system []string) *fantasy.Message {
	var parts []fantasy.MessagePart
	for _, s := range system {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, fantasy.TextPart{Text: s})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return &fantasy.Message{Role: fantasy.MessageRoleSystem, Content: parts}
}

// user splits a user message into a tool message (the tool results, which
// OpenAI wants right after the assistant's tool calls) and a plain user
// message with the rest.
func (b promptBuilder) user(m message.Message) ([]fantasy.Message, error) {
	var results, parts []fantasy.MessagePart
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				parts = append(parts, fantasy.TextPart{Text: blk.Text})
			}
		case message.Image:
			fp, err := imagePart(blk)
			if err != nil {
				return nil, err
			}
			parts = append(parts, fp)
		case message.ToolResult:
			res, extra, err := toolResult(blk)
			if err != nil {
				return nil, err
			}
			results = append(results, res)
			parts = append(parts, extra...)
		default:
			// thinking or tool_use in a user message cannot be sent; skip.
		}
	}
	var out []fantasy.Message
	if len(results) > 0 {
		out = append(out, fantasy.Message{Role: fantasy.MessageRoleTool, Content: results})
	}
	if len(parts) > 0 {
		out = append(out, fantasy.Message{Role: fantasy.MessageRoleUser, Content: parts})
	}
	return out, nil
}

func imagePart(blk message.Block) (fantasy.FilePart, error) {
	data, err := base64.StdEncoding.DecodeString(blk.ImageData)
	if err != nil {
		return fantasy.FilePart{}, fmt.Errorf("image block: data is not base64: %w", err)
	}
	mt := blk.MediaType
	if mt == "" {
		mt = "image/png"
	}
	return fantasy.FilePart{Data: data, MediaType: mt}, nil
}

// toolResult converts a tool_result block. fantasy carries one medium per
// result, so the first image goes inside the result (with the text beside
// it) and any further images follow as parts of the user message.
func toolResult(blk message.Block) (fantasy.ToolResultPart, []fantasy.MessagePart, error) {
	var texts []string
	var images []message.Block
	for _, c := range blk.Content {
		switch c.Type {
		case message.Text:
			if c.Text != "" {
				texts = append(texts, c.Text)
			}
		case message.Image:
			images = append(images, c)
		}
	}
	text := strings.Join(texts, "\n")
	part := fantasy.ToolResultPart{ToolCallID: blk.ToolUseID}
	switch {
	case len(images) > 0:
		part.Output = fantasy.ToolResultOutputContentMedia{
			Data: images[0].ImageData, MediaType: images[0].MediaType, Text: text,
		}
	case blk.IsError:
		if text == "" {
			text = "error"
		}
		part.Output = fantasy.ToolResultOutputContentError{Error: errors.New(text)}
	default:
		if text == "" {
			// Some servers reject empty tool messages.
			text = "(no output)"
		}
		part.Output = fantasy.ToolResultOutputContentText{Text: text}
	}
	var extra []fantasy.MessagePart
	for _, img := range images[min(1, len(images)):] {
		fp, err := imagePart(img)
		if err != nil {
			return part, nil, fmt.Errorf("tool result %s: %w", blk.ToolUseID, err)
		}
		extra = append(extra, fp)
	}
	return part, extra, nil
}

func (b promptBuilder) assistant(m message.Message) []fantasy.Message {
	var parts []fantasy.MessagePart
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				parts = appendText(parts, blk.Text)
			}
		case message.Thinking, message.RedactedThinking:
			if p, ok := b.reasoning(blk); ok {
				parts = append(parts, p)
			}
		case message.ToolUse:
			input := string(blk.Input)
			if strings.TrimSpace(input) == "" || !json.Valid(blk.Input) {
				input = "{}"
			}
			parts = append(parts, fantasy.ToolCallPart{
				ToolCallID: blk.ID, ToolName: blk.Name, Input: input,
			})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []fantasy.Message{{Role: fantasy.MessageRoleAssistant, Content: parts}}
}

// appendText joins text to an earlier text part, because fantasy's Chat
// Completions encoder keeps only the last text part of an assistant message.
func appendText(parts []fantasy.MessagePart, text string) []fantasy.MessagePart {
	for i, p := range parts {
		if tp, ok := p.(fantasy.TextPart); ok {
			tp.Text += "\n\n" + text
			parts[i] = tp
			return parts
		}
	}
	return append(parts, fantasy.TextPart{Text: text})
}

// reasoning converts a thinking block, or reports false when it must not be
// sent: it came from another provider, or this protocol cannot carry it.
// Foreign thinking is dropped rather than sent as text: replaying another
// model's private reasoning as visible text would change what the
// conversation says.
func (b promptBuilder) reasoning(blk message.Block) (fantasy.MessagePart, bool) {
	if blk.Provider != b.name {
		return nil, false
	}
	switch b.kind {
	case provider.KindOpenAICompatible:
		// Sent back as reasoning_content; some servers (Kimi, DeepSeek
		// thinking mode) require it on assistant tool-call messages.
		if blk.Type == message.RedactedThinking {
			return nil, false
		}
		return fantasy.ReasoningPart{Text: blk.Text}, true
	default:
		return nil, false
	}
}
