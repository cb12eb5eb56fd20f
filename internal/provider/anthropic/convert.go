package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/tandem-agent/tandem/internal/message"
)

// markLastBlock puts the breakpoint on the last block that can carry one
// (thinking blocks cannot).
func markLastBlock(m anthropic.MessageParam) {
	var content []anthropic.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		content = m.OfUser.Content
	case m.OfAssistant != nil:
		content = m.OfAssistant.Content
	}
	for i := len(content) - 1; i >= 0; i-- {
		if cc := content[i].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
			return
		}
	}
}

// anthropicUser puts tool results first, as the API requires at the start of
// the user turn after tool calls, then the rest in order.
func anthropicUser(m message.Message) ([]anthropic.ContentBlockParamUnion, error) {
	var results, rest []anthropic.ContentBlockParamUnion
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				rest = append(rest, anthropic.NewTextBlock(blk.Text))
			}
		case message.Image:
			img, err := anthropicImage(blk)
			if err != nil {
				return nil, err
			}
			rest = append(rest, anthropic.ContentBlockParamUnion{OfImage: img})
		case message.ToolResult:
			res, err := anthropicToolResult(blk)
			if err != nil {
				return nil, err
			}
			results = append(results, anthropic.ContentBlockParamUnion{OfToolResult: res})
		default:
			// thinking or tool_use in a user message cannot be sent; skip.
		}
	}
	return append(results, rest...), nil
}

// anthropicToolResult keeps text and images inside the result, text first.
func anthropicToolResult(blk message.Block) (*anthropic.ToolResultBlockParam, error) {
	var texts []string
	var images []*anthropic.ImageBlockParam
	for _, c := range blk.Content {
		switch c.Type {
		case message.Text:
			if c.Text != "" {
				texts = append(texts, c.Text)
			}
		case message.Image:
			img, err := anthropicImage(c)
			if err != nil {
				return nil, fmt.Errorf("tool result %s: %w", blk.ToolUseID, err)
			}
			images = append(images, img)
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" && len(images) == 0 {
		// Anthropic rejects empty text blocks.
		text = "(no output)"
		if blk.IsError {
			text = "error"
		}
	}
	res := &anthropic.ToolResultBlockParam{ToolUseID: blk.ToolUseID}
	if text != "" {
		res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: text}})
	}
	for _, img := range images {
		res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img})
	}
	if blk.IsError {
		res.IsError = anthropic.Bool(true)
	}
	return res, nil
}

func anthropicImage(blk message.Block) (*anthropic.ImageBlockParam, error) {
	if err := checkBase64(blk.ImageData); err != nil {
		return nil, fmt.Errorf("image block: data is not base64: %w", err)
	}
	mt := blk.MediaType
	if mt == "" {
		mt = "image/png"
	}
	return anthropic.NewImageBlockBase64(mt, blk.ImageData).OfImage, nil
}

// checkBase64 validates without holding the decoded image: images are sent
// again on every later step, and a screenshot is megabytes.
func checkBase64(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		// Line breaks would misalign the chunks below; rare enough to
		// decode whole.
		_, err := base64.StdEncoding.DecodeString(s)
		return err
	}
	const chunk = 4 * 1024 // base64 characters per 3 KiB
	var src [chunk]byte
	var dst [chunk / 4 * 3]byte
	for len(s) > 0 {
		n := copy(src[:], s)
		if _, err := base64.StdEncoding.Decode(dst[:], src[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// anthropicAssistant converts an assistant message. Thinking goes back only
// to the provider that produced it: a signature means nothing elsewhere, and
// replaying another model's private reasoning as text would change what the
// conversation says.
func anthropicAssistant(name string, m message.Message) []anthropic.ContentBlockParamUnion {
	var out []anthropic.ContentBlockParamUnion
	for _, blk := range m.Content {
		switch blk.Type {
		case message.Text:
			if blk.Text != "" {
				out = append(out, anthropic.NewTextBlock(blk.Text))
			}
		case message.Thinking:
			if blk.Provider == name && blk.Signature != "" {
				out = append(out, anthropic.NewThinkingBlock(blk.Signature, blk.Text))
			}
		case message.RedactedThinking:
			if blk.Provider == name && blk.Data != "" {
				out = append(out, anthropic.NewRedactedThinkingBlock(blk.Data))
			}
		case message.ToolUse:
			out = append(out, anthropic.NewToolUseBlock(blk.ID, toolUseInput(blk.Input), blk.Name))
		}
	}
	return out
}

// toolUseInput sends a recorded tool input as is when it is a JSON object,
// and {} otherwise: the API requires an object, and dropping the block would
// orphan its tool_result.
func toolUseInput(in json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(in)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return json.RawMessage("{}")
	}
	return in
}
