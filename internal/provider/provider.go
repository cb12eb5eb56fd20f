// Package provider is the boundary between the agent loop and LLM APIs. The
// loop depends only on the Provider interface and the types here; each wire
// protocol has its adapter package below this one (anthropic, openai,
// responses, gemini), and providers builds one from a Config. What the
// adapters share lives here and links no vendor SDK: the kinds, Config,
// *Error and its classification, the watch transport (stall.go) and the
// tool-set cache. Retrying is the loop's job: adapters make one attempt and
// classify failures with *Error.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Request is one model call.
type Request struct {
	Model     string // model id as the provider knows it (no "provider/" prefix)
	System    []string
	Messages  []message.Message
	Tools     []ToolSpec
	MaxTokens int64
	// ThinkingBudget > 0 turns on extended thinking where supported.
	ThinkingBudget int64
	// Effort is "low" | "medium" | "high" | "xhigh" | "max" (or OpenAI's
	// "none" and "minimal") where the model takes it; "" is its default.
	Effort string
	// ThinkingMode is the catalog's for the model ("budget", "adaptive",
	// "always", ...; "" unknown): adapters send adaptive thinking for the
	// adaptive and always-on modes rather than a budget those reject.
	ThinkingMode string
	// Headers are extra HTTP headers for this call (beta flags, ...).
	Headers map[string]string
	// ServerTools are provider-executed tools in the provider's own JSON
	// form (Anthropic's web_search_20250305, ...), sent beside Tools.
	// Adapters that have none ignore them.
	ServerTools []json.RawMessage
	// OutputSchema is a JSON Schema the final text answer must conform to
	// (--json-schema). The loop validates the answer either way; adapters
	// whose API constrains output natively also send it: the Responses
	// API's text.format always, Chat Completions' response_format for
	// kind openai, Gemini's responseJsonSchema on calls without tools, and the
	// others only when NativeOutput says the model accepts it.
	OutputSchema json.RawMessage
	// NativeOutput: the model accepts the provider's native structured
	// output field (the catalog's or config's "structured_output"); an
	// adapter that cannot tell on its own sends OutputSchema natively only
	// then, since many servers reject the field outright.
	NativeOutput bool
}

// Source is a web page a provider-side search returned; Cited holds the
// passages the answer quoted from it.
type Source struct {
	URL   string
	Title string
	Cited []string
}

// DeltaKind says what a streamed Delta carries.
type DeltaKind int

const (
	DeltaText DeltaKind = iota
	DeltaThinking
	// DeltaToolStart announces a tool call whose input is still streaming.
	DeltaToolStart
)

// Delta is a piece of the response as it streams in, for live display. The
// authoritative content is the Response returned at the end.
type Delta struct {
	Kind     DeltaKind
	Text     string
	ToolID   string
	ToolName string
}

// Response is the complete assistant message of one call.
type Response struct {
	Content    []message.Block
	Usage      message.Usage
	StopReason string // end_turn | tool_use | max_tokens | stop_sequence | ...
	Model      string
	// Sources are the pages provider-side web search found (ServerTools).
	Sources []Source
}

// Provider streams one model call. onDelta is called from the calling
// goroutine as content arrives; Stream returns when the response is complete
// or failed. A failure should be (or wrap) *Error so the loop can decide
// whether to retry.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}

// Error classifies a failed call.
type Error struct {
	Provider   string
	Status     int           // HTTP status, 0 when none (transport error)
	Message    string        // provider's own message
	Retryable  bool          // 429, 5xx, overloaded, dropped stream, ...
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 if not given
	Auth       bool          // 401/403: retrying will not help; the key is wrong
	Cause      error
}

func (e *Error) Error() string {
	switch {
	case e.Status != 0:
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	default:
		return fmt.Sprintf("%s: %s", e.Provider, e.Message)
	}
}

func (e *Error) Unwrap() error { return e.Cause }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var pe *Error
	ok := errors.As(err, &pe)
	return pe, ok
}
