// Package message is tandem's provider-neutral conversation model: what is
// stored for a session and what a provider adapter turns into its own wire
// format. It mirrors Anthropic's content blocks because they are the richest
// (thinking signatures, tool_use/tool_result pairing); adapters for other
// protocols drop what their API cannot carry.
package message

import (
	"encoding/json"
	"time"
)

// Role of a message's author.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockType names a kind of content block.
type BlockType string

const (
	Text             BlockType = "text"
	Thinking         BlockType = "thinking"
	RedactedThinking BlockType = "redacted_thinking"
	ToolUse          BlockType = "tool_use"
	ToolResult       BlockType = "tool_result"
	Image            BlockType = "image"
)

// Block is one content block. Which fields are set depends on Type.
type Block struct {
	Type BlockType `json:"type"`

	// text, thinking
	Text string `json:"text,omitempty"`
	// thinking: the provider's signature, sent back verbatim on later calls.
	Signature string `json:"signature,omitempty"`
	// redacted_thinking: opaque data, sent back verbatim.
	Data string `json:"data,omitempty"`
	// Provider that produced a thinking block; signatures are only valid there.
	Provider string `json:"provider,omitempty"`

	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"` // text and image blocks
	IsError   bool    `json:"is_error,omitempty"`
	// Diff is the unified diff of what an edit changed, kept so a page
	// reloaded from the store shows the call as it was shown live (the
	// tool_result event's diff). For people only: adapters never send it.
	Diff string `json:"diff,omitempty"`

	// image (base64 data)
	MediaType string `json:"media_type,omitempty"`
	ImageData string `json:"image_data,omitempty"`
}

// Message is one turn of the conversation as stored and sent.
type Message struct {
	// ID is tandem's own, unique in the store.
	ID string `json:"id"`
	// ProviderID is the id the model provider or the Claude Code CLI gave
	// the message, kept as data: providers may reuse ids across
	// conversations.
	ProviderID string    `json:"provider_id,omitempty"`
	Role       Role      `json:"role"`
	Content    []Block   `json:"content"`
	Model      string    `json:"model,omitempty"`
	Usage      *Usage    `json:"usage,omitempty"`
	CostUSD    *float64  `json:"cost_usd,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	// Kind is "" for conversation; KindCompaction marks a compaction
	// boundary whose text is the summary that replaces what came before.
	Kind       Kind        `json:"kind,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
}

// Kind says what a stored message is, beyond its role.
type Kind string

// KindCompaction is a compaction boundary: a user-role message whose text
// summarises the conversation before it. The messages it summarises stay
// stored; runtimes send the summary in their place.
const KindCompaction Kind = "compaction"

// Compaction describes a boundary (Kind == KindCompaction).
type Compaction struct {
	// KeepFrom is the id of the first message kept verbatim after the
	// summary ("" when the summary replaces everything before it).
	KeepFrom     string `json:"keep_from,omitempty"`
	Trigger      string `json:"trigger"` // auto | manual | overflow
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
	Model        string `json:"model,omitempty"` // the model that wrote the summary
	Focus        string `json:"focus,omitempty"` // the user's /compact instructions
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: Text, Text: s} }

// PlainText concatenates the text blocks of m.
func (m Message) PlainText() string {
	var s string
	for _, b := range m.Content {
		if b.Type == Text {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the tool_use blocks of m in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == ToolUse {
			out = append(out, b)
		}
	}
	return out
}
