package backend

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
)

// storedBlock is how a message.Block is written to the content column. It
// embeds Block so that fields added to Block later are stored without a
// change here; the outer Input and Content shadow the embedded ones.
//
// encoding/json compacts a json.RawMessage when marshalling, but a tool_use
// input must come back byte for byte as the model sent it. So "input" holds
// the (queryable) compact form, and "input_raw" the exact bytes whenever
// they differ from it, or when they are not valid JSON at all (a truncated
// tool call is still worth keeping).
type storedBlock struct {
	message.Block
	Input    json.RawMessage `json:"input,omitempty"`
	InputRaw *string         `json:"input_raw,omitempty"`
	Content  []storedBlock   `json:"content,omitempty"`
}

func toStored(blocks []message.Block) []storedBlock {
	if blocks == nil {
		return nil
	}
	out := make([]storedBlock, len(blocks))
	for i, b := range blocks {
		sb := storedBlock{Block: b, Content: toStored(b.Content)}
		sb.Block.Input, sb.Block.Content = nil, nil
		if len(b.Input) > 0 {
			var compact bytes.Buffer
			if err := json.Compact(&compact, b.Input); err == nil {
				sb.Input = compact.Bytes()
			}
			if compact.Len() == 0 || !bytes.Equal(compact.Bytes(), b.Input) {
				raw := string(b.Input)
				sb.InputRaw = &raw
			}
		}
		out[i] = sb
	}
	return out
}

func fromStored(blocks []storedBlock) []message.Block {
	if blocks == nil {
		return nil
	}
	out := make([]message.Block, len(blocks))
	for i, sb := range blocks {
		b := sb.Block
		b.Content = fromStored(sb.Content)
		switch {
		case sb.InputRaw != nil:
			b.Input = json.RawMessage(*sb.InputRaw)
		case len(sb.Input) > 0:
			b.Input = sb.Input
		}
		out[i] = b
	}
	return out
}

// EncodeContent is the stored form of a message's content (every backend
// stores this JSON text), without HTML escaping, so text stays
// readable in the database.
func EncodeContent(blocks []message.Block) (string, error) {
	if blocks == nil {
		blocks = []message.Block{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toStored(blocks)); err != nil {
		return "", fmt.Errorf("encode content: %w", err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// DecodeContent reads what EncodeContent wrote.
func DecodeContent(s string) ([]message.Block, error) {
	var sb []storedBlock
	if err := json.Unmarshal([]byte(s), &sb); err != nil {
		return nil, fmt.Errorf("decode content: %w", err)
	}
	return fromStored(sb), nil
}
