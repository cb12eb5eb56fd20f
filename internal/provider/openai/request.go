package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/provider"
)

// chatRequest is the Chat Completions request body. Fields are the API's;
// what is left empty is left out, as the servers read a missing field as
// their default and some refuse fields they do not know.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	// Reasoning models take max_completion_tokens, the others max_tokens
	// (see maxTokensField).
	MaxTokens           int64           `json:"max_tokens,omitempty"`
	MaxCompletionTokens int64           `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          string          `json:"tool_choice,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       streamOptions   `json:"stream_options"`
}

type streamOptions struct {
	// IncludeUsage asks for a last chunk with the token counts.
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message of the conversation. Content is a string, or
// a list of contentPart on user messages that carry images.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// ReasoningContent goes back on assistant messages of OpenAI-compatible
	// servers (present, even empty, whenever the model reasoned).
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict stays false: tandem's tool schemas do not follow strict
	// mode's rules (every property required, no open objects).
	Strict bool `json:"strict"`
}

type responseFormat struct {
	Type       string         `json:"type"`
	JSONSchema jsonSchemaSpec `json:"json_schema"`
}

type jsonSchemaSpec struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
	Strict bool           `json:"strict"`
}

// efforts are the reasoning_effort values the API knows.
var efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// body builds the request for req; tools come converted from the cache.
func (b promptBuilder) body(req provider.Request, tools []chatTool) (*chatRequest, error) {
	msgs, err := b.messages(req.System, req.Messages)
	if err != nil {
		return nil, err
	}
	c := &chatRequest{Model: req.Model, Messages: msgs, Tools: tools, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}}
	if len(tools) > 0 {
		c.ToolChoice = "auto"
	}
	if req.MaxTokens > 0 {
		if reasoningModel(req.Model) {
			c.MaxCompletionTokens = req.MaxTokens
		} else {
			c.MaxTokens = req.MaxTokens
		}
	}
	if req.Effort != "" {
		if !validEffort(req.Effort) {
			return nil, fmt.Errorf("reasoning effort %q is not one of %s", req.Effort, strings.Join(efforts, ", "))
		}
		c.ReasoningEffort = req.Effort
	}
	if b.nativeOutput(req) {
		f, err := newOutputFormat(req.OutputSchema)
		if err != nil {
			return nil, err
		}
		if f != nil {
			c.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchemaSpec{Name: "output", Schema: f.schema, Strict: f.strict}}
		}
	}
	return c, nil
}

func validEffort(e string) bool {
	for _, x := range efforts {
		if x == e {
			return true
		}
	}
	return false
}

// reasoningModel reports OpenAI's reasoning models (o1, o3, o4, gpt-5,
// gpt-oss), which refuse max_tokens and take max_completion_tokens.
// OpenAI-compatible servers serving them (llama.cpp with gpt-oss) follow
// OpenAI there too.
func reasoningModel(id string) bool {
	for _, p := range []string{"o1", "o3", "o4", "oss"} {
		if strings.HasPrefix(id, p) || strings.Contains(id, "-"+p) {
			return true
		}
	}
	return strings.Contains(strings.ToLower(id), "gpt-5")
}

// nativeOutput reports whether req's schema goes out as response_format:
// always for OpenAI itself, and for an OpenAI-compatible server only when
// its model is known to take it (many local servers reject the field).
// response_format leaves tool calls free, so tools need no special case.
func (b promptBuilder) nativeOutput(req provider.Request) bool {
	return len(req.OutputSchema) > 0 && (b.kind == provider.KindOpenAI || req.NativeOutput)
}

// functionTools converts tool specs to function definitions. Adapters keep
// the result in a provider.ToolCache, so a session encodes its schemas once.
func functionTools(specs []provider.ToolSpec) ([]chatTool, error) {
	out := make([]chatTool, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		schema, err := provider.ObjectSchemaJSON(s)
		if err != nil {
			return nil, err
		}
		out = append(out, chatTool{Type: "function", Function: functionDef{Name: s.Name, Description: s.Description, Parameters: schema}})
	}
	return out, nil
}
