package tandem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Provider is a model provider given in code: Options.Providers maps a
// name to one, and model specs "NAME/model-id" reach it. tandem's loop
// calls Stream once per model step with the whole conversation; retries,
// tool calls, permissions and storage stay tandem's.
type Provider interface {
	// Stream makes one model call. It may call emit with pieces of the
	// answer as they arrive (for live display), from the goroutine that
	// called Stream and before it returns; the returned response is what
	// counts. Return a
	// *ProviderError to say whether a failure is worth retrying; any
	// other error ends the turn with subtype error_provider.
	Stream(ctx context.Context, req ModelRequest, emit func(ModelDelta)) (*ModelResponse, error)
}

// ModelRequest is one model call.
type ModelRequest struct {
	Model     string // the model id after "NAME/"
	System    []string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int64
	// OutputSchema is set when the turn's answer must conform to a JSON
	// Schema (RunOptions.JSONSchema); tandem validates the answer anyway.
	OutputSchema json.RawMessage
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType names a kind of content block.
type BlockType string

const (
	BlockText             BlockType = "text"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
	BlockToolUse          BlockType = "tool_use"
	BlockToolResult       BlockType = "tool_result"
	BlockImage            BlockType = "image"
)

// Message is one message of the conversation (Anthropic-shaped: tool
// results are user messages of tool_result blocks).
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Block is one content block; which fields are set depends on Type.
type Block struct {
	Type BlockType `json:"type"`
	// text, thinking
	Text string `json:"text,omitempty"`
	// thinking: the provider's signature, sent back on later calls.
	Signature string `json:"signature,omitempty"`
	// redacted_thinking: opaque data, sent back verbatim.
	Data string `json:"data,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"` // text and image blocks
	IsError   bool    `json:"is_error,omitempty"`
	// Diff: what an edit changed (a unified diff), for people; never sent
	// to a model.
	Diff string `json:"diff,omitempty"`
	// image: base64 data
	MediaType string `json:"media_type,omitempty"`
	ImageData string `json:"image_data,omitempty"`
}

// ModelResponse is the complete assistant message of one call.
type ModelResponse struct {
	Content []Block
	Usage   Usage
	// StopReason: end_turn, tool_use, max_tokens, ...
	StopReason string
}

// DeltaKind says what a ModelDelta carries.
type DeltaKind int

const (
	DeltaText      DeltaKind = iota // a piece of answer text
	DeltaThinking                   // a piece of thinking
	DeltaToolStart                  // a tool call began (ToolID, ToolName)
)

// ModelDelta is a piece of a streaming answer.
type ModelDelta struct {
	Kind     DeltaKind
	Text     string
	ToolID   string
	ToolName string
}

// ProviderError classifies a failed call.
type ProviderError struct {
	Status     int           // HTTP status, 0 when none
	Message    string        // what went wrong
	Retryable  bool          // rate limit, overload, dropped connection: tandem retries with backoff
	RetryAfter time.Duration // the provider's Retry-After, 0 if none
	Auth       bool          // the credentials were refused; retrying will not help
	Err        error         // the cause, if any
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	}
	return e.Message
}

func (e *ProviderError) Unwrap() error { return e.Err }

// customProvider adapts a Provider to the loop's interface.
type customProvider struct {
	name string
	p    Provider
}

func (c customProvider) Name() string { return c.name }

func (c customProvider) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	pr := ModelRequest{Model: req.Model, System: req.System, MaxTokens: req.MaxTokens, OutputSchema: req.OutputSchema}
	for _, m := range req.Messages {
		pr.Messages = append(pr.Messages, Message{Role: Role(m.Role), Content: publicBlocks(m.Content)})
	}
	for _, t := range req.Tools {
		pr.Tools = append(pr.Tools, ToolSpec(t))
	}
	emit := func(d ModelDelta) {
		onDelta(provider.Delta{Kind: provider.DeltaKind(d.Kind), Text: d.Text, ToolID: d.ToolID, ToolName: d.ToolName})
	}
	resp, err := c.p.Stream(ctx, pr, emit)
	if err != nil {
		var pe *ProviderError
		if errors.As(err, &pe) {
			return nil, &provider.Error{Provider: c.name, Status: pe.Status, Message: pe.Message, Retryable: pe.Retryable,
				RetryAfter: pe.RetryAfter, Auth: pe.Auth, Cause: err}
		}
		if ctx.Err() != nil {
			return nil, err // an interrupt, not the provider's failure
		}
		return nil, &provider.Error{Provider: c.name, Message: err.Error(), Cause: err}
	}
	if resp == nil {
		return nil, &provider.Error{Provider: c.name, Message: "the provider returned no response and no error"}
	}
	return &provider.Response{Content: internalBlocks(resp.Content, c.name), Usage: internalUsage(resp.Usage),
		StopReason: resp.StopReason, Model: req.Model}, nil
}

func publicBlocks(bs []message.Block) []Block {
	if bs == nil {
		return nil
	}
	out := make([]Block, len(bs))
	for i, b := range bs {
		out[i] = Block{Type: BlockType(b.Type), Text: b.Text, Signature: b.Signature, Data: b.Data, ID: b.ID, Name: b.Name,
			Input: b.Input, ToolUseID: b.ToolUseID, Content: publicBlocks(b.Content), IsError: b.IsError,
			Diff: b.Diff, MediaType: b.MediaType, ImageData: b.ImageData}
	}
	return out
}

func internalBlocks(bs []Block, providerName string) []message.Block {
	if bs == nil {
		return nil
	}
	out := make([]message.Block, len(bs))
	for i, b := range bs {
		out[i] = message.Block{Type: message.BlockType(b.Type), Text: b.Text, Signature: b.Signature, Data: b.Data,
			ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, Content: internalBlocks(b.Content, providerName),
			IsError: b.IsError, Diff: b.Diff, MediaType: b.MediaType, ImageData: b.ImageData}
		if b.Type == BlockThinking || b.Type == BlockRedactedThinking {
			out[i].Provider = providerName // signatures are valid only where they were made
		}
	}
	return out
}
