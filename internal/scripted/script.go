package scripted

import (
	"encoding/json"
	"time"
)

// Script is what the server answers. Steps are selected by conversation
// position (see package doc); Fallback answers side requests and every
// request past the last step.
type Script struct {
	Steps    []Step `json:"steps"`
	Fallback *Step  `json:"fallback,omitempty"`
	// Threads are other conversations served by the same server, such as
	// sub-agents': a request whose first user message contains a thread's
	// Match gets that thread's steps (still chosen by the number of
	// assistant messages). The first matching thread wins; requests that
	// match none get Steps.
	Threads []Thread `json:"threads,omitempty"`

	// SideModelPattern is a regular expression matched against the request's
	// model: matching requests are side requests. nil means the default
	// "haiku"; a pointer to "" disables model-based detection.
	SideModelPattern *string `json:"side_model_pattern,omitempty"`
	// SideWithoutTools makes requests without tools side requests. nil means
	// true.
	SideWithoutTools *bool `json:"side_without_tools,omitempty"`
	// RequireKey, when set, makes every API request present this key in
	// x-api-key or Authorization: Bearer, else it gets a 401.
	RequireKey string `json:"require_key,omitempty"`
	// Models are listed by GET /v1/models. Empty means a small default list.
	Models []string `json:"models,omitempty"`
	// ChunkSize is the approximate size in bytes of streamed text and JSON
	// pieces. 0 means 12.
	ChunkSize int `json:"chunk_size,omitempty"`
	// ContextLimit, when > 0, is the server's real context window in
	// tokens (counted as request body bytes / 4, like the usage it
	// reports): a completion request over it gets the provider's real
	// overflow error (see OverflowDialect) instead of an answer.
	ContextLimit int64 `json:"context_limit,omitempty"`
	// OverflowDialect is whose overflow error OpenAI-protocol requests
	// get: openai (default), vllm, deepseek, llamacpp, lmstudio, ollama or
	// openrouter. Anthropic requests always get Anthropic's. vllm,
	// deepseek and openrouter count max_tokens against the window, as
	// those servers do.
	OverflowDialect string `json:"overflow_dialect,omitempty"`
	// StepMarkers embeds the step index in generated tool-call ids and
	// selects the step from the last marked call in the request, so a
	// conversation whose older messages were replaced by a summary still
	// walks the script in order.
	StepMarkers bool `json:"step_markers,omitempty"`
}

// Thread is a conversation of its own within a script.
type Thread struct {
	Match string `json:"match"`
	Steps []Step `json:"steps"`
}

// Step is one scripted assistant reply.
type Step struct {
	Text      string     `json:"text,omitempty"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage overrides the token counts; nil means estimate from sizes.
	Usage *Usage `json:"usage,omitempty"`
	// StopReason overrides the Anthropic stop_reason (default tool_use when
	// there are tool calls, else end_turn). OpenAI gets it mapped to a
	// finish_reason.
	StopReason string `json:"stop_reason,omitempty"`
	Fault      *Fault `json:"fault,omitempty"`
}

// ToolCall is a tool use the step asks for. ID is generated when empty.
type ToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Usage is reported token usage, in Anthropic terms.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// Fault makes the first Times attempts of a step fail (every attempt when
// Always). Several fields may be combined; Status wins over stream faults.
type Fault struct {
	// Status answers with this HTTP status and an error body before any
	// streaming.
	Status int `json:"status,omitempty"`
	// RetryAfter is sent as retry-after (seconds, may be fractional) and
	// retry-after-ms.
	RetryAfter string `json:"retry_after,omitempty"`
	// Body replaces the default error JSON for Status, or the error event
	// data of MidStreamError.
	Body json.RawMessage `json:"body,omitempty"`
	// Headers are extra response headers (e.g. x-should-retry).
	Headers map[string]string `json:"headers,omitempty"`
	// MidStreamError sends part of the reply then an Anthropic error event
	// (overloaded_error); OpenAI streams and non-streaming replies are cut
	// off instead.
	MidStreamError bool `json:"mid_stream_error,omitempty"`
	// DropAfterBytes closes the connection after this many body bytes; 0
	// closes it before any response.
	DropAfterBytes *int `json:"drop_after_bytes,omitempty"`
	// FirstByteDelayMS delays the response headers.
	FirstByteDelayMS int `json:"first_byte_delay_ms,omitempty"`
	// DelayBetweenChunksMS delays every streamed event after the first.
	DelayBetweenChunksMS int `json:"delay_between_chunks_ms,omitempty"`
	// Stall makes the server go quiet and wait for the client to give up:
	// "headers" never sends response headers; "body" sends the headers and
	// StallAfterEvents streamed events, then nothing; "pings" does the same
	// but then sends keep-alives (Anthropic ping events, OpenAI SSE
	// comments) every PingEveryMS (default 50) without ever continuing.
	Stall string `json:"stall,omitempty"`
	// StallAfterEvents is how many events a "body" or "pings" stall sends
	// before going quiet.
	StallAfterEvents int `json:"stall_after_events,omitempty"`
	// PingEveryMS paces a "pings" stall's keep-alives.
	PingEveryMS int `json:"ping_every_ms,omitempty"`
	// ContentType replaces the Content-Type of a Status answer (with Status
	// 200 it imitates a proxy's HTML page or a JSON error sent as success).
	ContentType string `json:"content_type,omitempty"`
	// BodyText is a Status answer's body as text (HTML, say), for bodies
	// that are not JSON.
	BodyText string `json:"body_text,omitempty"`
	// Times is how many attempts fail (default 1).
	Times int `json:"times,omitempty"`
	// Always applies the fault to every attempt.
	Always bool `json:"always,omitempty"`
}

func (f *Fault) times() int {
	if f.Times <= 0 {
		return 1
	}
	return f.Times
}

func (f *Fault) firstByteDelay() time.Duration {
	return time.Duration(f.FirstByteDelayMS) * time.Millisecond
}

// Stall modes (Fault.Stall).
const (
	StallHeaders = "headers"
	StallBody    = "body"
	StallPings   = "pings"
)

func (f *Fault) pingEvery() time.Duration {
	if f.PingEveryMS <= 0 {
		return 50 * time.Millisecond
	}
	return time.Duration(f.PingEveryMS) * time.Millisecond
}

func (f *Fault) chunkDelay() time.Duration {
	return time.Duration(f.DelayBetweenChunksMS) * time.Millisecond
}

func (s *Step) stopReason() string {
	if s.StopReason != "" {
		return s.StopReason
	}
	if len(s.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// defaultFallbackText answers side requests and requests past the script's
// end when the script has no fallback.
const defaultFallbackText = "done"

const defaultSideModelPattern = "haiku"

const defaultChunkSize = 12

func defaultModels() []string {
	return []string{"claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "gpt-6.2-sol", "gpt-4o", "gpt-4o-mini"}
}
