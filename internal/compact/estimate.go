package compact

import (
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Estimates are chars/4, the usual rule of thumb for English and code. They
// only fill the gap between the provider's reported usage of the previous
// request and the next one, so their error does not accumulate.
const (
	charsPerToken = 4
	// imageTokens is a typical screenshot's cost (Anthropic: w*h/750 for
	// a 1092x1092 image is about 1600).
	imageTokens = 1600
	// messageOverhead covers role markers and block framing.
	messageOverhead = 4
)

// Tokens estimates a string's tokens.
func Tokens(s string) int64 { return int64((len(s) + charsPerToken - 1) / charsPerToken) }

// BlockTokens estimates one content block.
func BlockTokens(b message.Block) int64 {
	switch b.Type {
	case message.Text, message.Thinking:
		return Tokens(b.Text)
	case message.RedactedThinking:
		return Tokens(b.Data)
	case message.ToolUse:
		return Tokens(b.Name) + Tokens(string(b.Input)) + messageOverhead
	case message.ToolResult:
		n := int64(messageOverhead)
		for _, c := range b.Content {
			n += BlockTokens(c)
		}
		return n
	case message.Image:
		return imageTokens
	}
	return 0
}

// MessageTokens estimates one message.
func MessageTokens(m message.Message) int64 {
	n := int64(messageOverhead)
	for _, b := range m.Content {
		n += BlockTokens(b)
	}
	return n
}

// MessagesTokens estimates a list of messages.
func MessagesTokens(ms []message.Message) int64 {
	var n int64
	for _, m := range ms {
		n += MessageTokens(m)
	}
	return n
}

// ToolTokens estimates one tool definition in a request.
func ToolTokens(name, description, schema string) int64 {
	return Tokens(name) + Tokens(description) + Tokens(schema) + messageOverhead
}

// RequestTokens estimates a whole request: system prompt, tool
// definitions and messages.
func RequestTokens(req provider.Request) int64 {
	var n int64
	for _, s := range req.System {
		n += Tokens(s)
	}
	for _, t := range req.Tools {
		n += ToolTokens(t.Name, t.Description, string(t.InputSchema))
	}
	for _, t := range req.ServerTools {
		n += Tokens(string(t))
	}
	return n + MessagesTokens(req.Messages)
}
