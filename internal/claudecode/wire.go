package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Msg is one parsed stdout line. Only the fields the runtime uses are
// decoded; Raw keeps the line for logs. One flat struct covers every type
// because the CLI's messages share most fields and new ones appear with
// every release: unknown fields are ignored.
type Msg struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	UUID      string `json:"uuid,omitempty"`

	// system/init
	Cwd               string      `json:"cwd,omitempty"`
	Tools             []string    `json:"tools,omitempty"`
	Model             string      `json:"model,omitempty"`
	PermissionMode    string      `json:"permissionMode,omitempty"`
	ClaudeCodeVersion string      `json:"claude_code_version,omitempty"`
	APIKeySource      string      `json:"apiKeySource,omitempty"`
	MCPServers        []MCPServer `json:"mcp_servers,omitempty"`

	// assistant, user
	// Message is the API message of assistant and user lines (decoded from
	// MessageRaw; other types use "message" for prose).
	Message         *APIMessage     `json:"-"`
	MessageRaw      json.RawMessage `json:"message,omitempty"`
	ParentToolUseID *string         `json:"parent_tool_use_id,omitempty"`
	ToolUseResult   json.RawMessage `json:"tool_use_result,omitempty"`
	Error           json.RawMessage `json:"error,omitempty"` // assistant: string code; api_retry: string

	// stream_event
	Event        *StreamEvent `json:"event,omitempty"`
	APIMessageID string       `json:"api_message_id,omitempty"`

	// system/api_retry
	Attempt      int   `json:"attempt,omitempty"`
	MaxRetries   int   `json:"max_retries,omitempty"`
	RetryDelayMS int64 `json:"retry_delay_ms,omitempty"`
	ErrorStatus  *int  `json:"error_status,omitempty"`

	// system/compact_boundary
	CompactMetadata *struct {
		Trigger    string `json:"trigger"`
		PreTokens  int64  `json:"pre_tokens"`
		PostTokens int64  `json:"post_tokens,omitempty"`
	} `json:"compact_metadata,omitempty"`

	// system/model_fallback: the CLI gave up on the main model
	// ("overloaded") and goes on with the next --fallback-model.
	OriginalModel string `json:"original_model,omitempty"`
	FallbackModel string `json:"fallback_model,omitempty"`
	Trigger       string `json:"trigger,omitempty"`

	// system/status; system/task_notification: completed, failed, killed, stopped
	Status string `json:"status,omitempty"`

	// system/task_started, system/task_notification: the CLI's own
	// background tasks (tasks.go).
	TaskID         string `json:"task_id,omitempty"`
	TaskType       string `json:"task_type,omitempty"`
	TaskToolUseID  string `json:"tool_use_id,omitempty"`
	TaskDesc       string `json:"description,omitempty"`
	TaskSummary    string `json:"summary,omitempty"`
	IsBackgrounded *bool  `json:"is_backgrounded,omitempty"`

	// result
	IsError           bool                 `json:"is_error,omitempty"`
	Result            string               `json:"result,omitempty"`
	Errors            []string             `json:"errors,omitempty"`
	DurationMS        int64                `json:"duration_ms,omitempty"`
	NumTurns          int                  `json:"num_turns,omitempty"`
	TotalCostUSD      *float64             `json:"total_cost_usd,omitempty"`
	Usage             *APIUsage            `json:"usage,omitempty"`
	PermissionDenials []wireDenial         `json:"permission_denials,omitempty"`
	TerminalReason    string               `json:"terminal_reason,omitempty"`
	APIErrorStatus    *int                 `json:"api_error_status,omitempty"`
	SinceLastResult   map[string]modelCost `json:"model_usage_since_last_result,omitempty"`
	// StructuredOutput is the --json-schema answer (the input of the
	// model's StructuredOutput call, validated by the CLI).
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`

	// control_request, control_response, control_cancel_request
	RequestID string          `json:"request_id,omitempty"`
	Request   json.RawMessage `json:"request,omitempty"`
	Response  json.RawMessage `json:"response,omitempty"`

	Raw []byte `json:"-"`
}

// MCPServer is one of the CLI's MCP servers as system/init reports it
// (status: connected, failed, needs-auth, pending, disabled).
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// APIMessage is an Anthropic Messages API message as the CLI forwards it.
type APIMessage struct {
	ID         string          `json:"id,omitempty"`
	Role       string          `json:"role,omitempty"`
	Model      string          `json:"model,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"` // string or []APIBlock
	StopReason string          `json:"stop_reason,omitempty"`
	Usage      *APIUsage       `json:"usage,omitempty"`
}

// Blocks decodes the content, which user messages may send as a string.
func (m *APIMessage) Blocks() []APIBlock {
	if m == nil || len(m.Content) == 0 {
		return nil
	}
	var blocks []APIBlock
	if err := json.Unmarshal(m.Content, &blocks); err == nil {
		return blocks
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil && s != "" {
		return []APIBlock{{Type: "text", Text: s}}
	}
	return nil
}

// APIBlock is one content block.
type APIBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result: string or blocks
	IsError   bool            `json:"is_error,omitempty"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source,omitempty"`
}

// APIUsage is Anthropic token usage.
type APIUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// StreamEvent is a raw Messages API streaming event.
type StreamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string    `json:"id"`
		Usage *APIUsage `json:"usage"`
	} `json:"message,omitempty"`
	ContentBlock *APIBlock `json:"content_block,omitempty"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text,omitempty"`
		Thinking    string `json:"thinking,omitempty"`
		Signature   string `json:"signature,omitempty"`
		PartialJSON string `json:"partial_json,omitempty"`
		StopReason  string `json:"stop_reason,omitempty"`
	} `json:"delta,omitempty"`
	Usage *APIUsage `json:"usage,omitempty"`
}

type wireDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
}

type modelCost struct {
	CostUSD float64 `json:"costUSD"`
}

// ParseLine decodes one stdout line. ok is false for lines that are not
// JSON objects (some CLI builds print debug lines to stdout); err is set for
// a line that looks like JSON but does not decode.
func ParseLine(line []byte) (m Msg, ok bool, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Msg{}, false, nil
	}
	if err := json.Unmarshal(line, &m); err != nil {
		// A field whose type changed in a newer CLI must not lose the
		// whole line: keep the envelope so the type is still known.
		var env struct {
			Type      string `json:"type"`
			Subtype   string `json:"subtype"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(line, &env) != nil || env.Type == "" {
			return Msg{}, false, fmt.Errorf("decode stream-json line: %w", err)
		}
		m = Msg{Type: env.Type, Subtype: env.Subtype, SessionID: env.SessionID}
	}
	if len(m.MessageRaw) > 0 && m.MessageRaw[0] == '{' {
		var am APIMessage
		if err := json.Unmarshal(m.MessageRaw, &am); err != nil {
			return Msg{}, false, fmt.Errorf("decode %s message: %w", m.Type, err)
		}
		m.Message = &am
	}
	m.Raw = append([]byte(nil), line...)
	return m, true, nil
}

// errorString reads Msg.Error, which is a string in the messages we use.
func (m Msg) errorString() string {
	var s string
	if json.Unmarshal(m.Error, &s) == nil {
		return s
	}
	return string(m.Error)
}

// toolResultText flattens a tool_result's content (a string or blocks).
func toolResultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []APIBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	for _, bl := range blocks {
		if bl.Type == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}
