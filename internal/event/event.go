// Package event defines tandem's event contract: the one stream of JSON
// objects that every runtime emits and every interface (CLI stream-json,
// HTTP server-sent events, web UI, embedders) consumes. docs/events.md
// documents each type with an example; keep the two in step.
package event

import (
	"encoding/json"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// Type names one kind of event.
type Type string

const (
	Text              Type = "text"               // assistant text delta
	Thinking          Type = "thinking"           // thinking delta (or signature at the end of a block)
	ToolUse           Type = "tool_use"           // the model asked for a tool call (complete input)
	ToolResult        Type = "tool_result"        // a tool call finished
	ToolOutput        Type = "tool_output"        // streamed output of a running tool
	Status            Type = "status"             // session start: id, cwd, model, runtime, tools; also notices
	Result            Type = "result"             // turn end
	Error             Type = "error"              // something went wrong (the turn may go on)
	Retry             Type = "retry"              // a provider call is retried
	PermissionRequest Type = "permission_request" // a tool call waits for the user's decision
	PermissionReply   Type = "permission_reply"   // that decision was made (by whom and what)
	ToolTimeout       Type = "tool_timeout"       // a tool ran past its time limit and was stopped
	ModeChanged       Type = "mode_changed"       // permission mode changed
	TaskUpdate        Type = "task_update"        // the todo list changed
	RewindPoint       Type = "rewind_point"       // a point the session can be rewound to
	Context           Type = "context"            // how full the model's context window is
	CompactBoundary   Type = "compact_boundary"   // the conversation was compacted into a summary
	KeepAlive         Type = "keep_alive"         // transport heartbeat (SSE)
	Done              Type = "done"               // the stream for this turn is closed
	SandboxDenial     Type = "sandbox_denial"     // the OS sandbox refused a path or a host
	Diagnostics       Type = "diagnostics"        // a tool call's edit made new errors a language server reports
	BackgroundTask    Type = "background_task"    // a background task (shell, sub-agent) started or ended
)

// Result subtypes, named as Claude Code names them where the meaning matches.
const (
	SubtypeSuccess          = "success"
	SubtypeMaxTurns         = "error_max_turns"
	SubtypeMaxBudget        = "error_max_budget_usd"
	SubtypeInterrupted      = "interrupted"
	SubtypeError            = "error_during_execution"
	SubtypeProviderError    = "error_provider"
	SubtypePermissionDenied = "error_permission"
)

// SubtypeUserMessage marks the status event a turn of a shared session
// starts with (the server's, a chat bridge's): Text is the prompt, so
// every front end following the session shows it, and Meta["origin"],
// when set, the front end that sent it.
const SubtypeUserMessage = "user_message"

// Todo is one entry of the agent's task list (TodoWrite).
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"` // pending | in_progress | completed
	ActiveForm string `json:"activeForm,omitempty"`
}

// Denial records a tool call the permission engine refused.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// Event is one element of the stream. The envelope (type, session_id, seq,
// ts) is always set; the other fields belong to particular types and are
// omitted when empty, so each type serialises to exactly its documented
// shape. A flat struct rather than a payload interface keeps decoding
// trivial for every consumer, Go or not.
type Event struct {
	Type      Type      `json:"type"`
	SessionID string    `json:"session_id"`
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"ts"`
	// ParentToolUseID marks an event of a sub-agent: the id of the Agent
	// (or Task, or fork-skill) tool call that started it. Empty for the
	// session's own events.
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`

	// text, thinking
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	MessageID string `json:"message_id,omitempty"`

	// tool_use, tool_result, tool_output, tool_timeout, permission_request
	ToolUseID string          `json:"tool_use_id,omitempty"`
	ToolName  string          `json:"tool_name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Output    string          `json:"output,omitempty"`   // tool_result content, tool_output chunk
	Stream    string          `json:"stream,omitempty"`   // tool_output: stdout | stderr
	IsError   bool            `json:"is_error,omitempty"` // tool_result, result
	Diff      string          `json:"diff,omitempty"`     // tool_result of edits, permission_request preview
	Meta      map[string]any  `json:"meta,omitempty"`     // tool-specific extras (exit_code, file_path, ...)
	TimeoutMS int64           `json:"timeout_ms,omitempty"`

	// status
	Cwd     string   `json:"cwd,omitempty"`
	Model   string   `json:"model,omitempty"`
	Runtime string   `json:"runtime,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	Mode    string   `json:"mode,omitempty"` // status, mode_changed
	Message string   `json:"message,omitempty"`

	// result
	Subtype           string         `json:"subtype,omitempty"`
	Result            string         `json:"result,omitempty"`
	Usage             *message.Usage `json:"usage,omitempty"`
	CostUSD           *float64       `json:"total_cost_usd,omitempty"` // nil: unknown (model without prices)
	DurationMS        int64          `json:"duration_ms,omitempty"`
	NumTurns          int            `json:"num_turns,omitempty"`
	PermissionDenials []Denial       `json:"permission_denials,omitempty"`
	// StructuredOutput is the final answer as JSON, validated against the
	// turn's --json-schema.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`

	// error, retry
	Error      string `json:"error,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	DelayMS    int64  `json:"delay_ms,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`

	// permission_request, permission_reply
	RequestID  string `json:"request_id,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Suggestion string `json:"suggestion,omitempty"` // the rule that "allow always" would save
	Decision   string `json:"decision,omitempty"`   // permission_reply: allow_once | allow_always | deny

	// mode_changed
	PreviousMode string `json:"previous_mode,omitempty"`

	// task_update
	Todos []Todo `json:"todos,omitempty"`

	// rewind_point
	Checkpoint int   `json:"checkpoint,omitempty"` // the prompt's number (1 = the first)
	Position   int64 `json:"position,omitempty"`   // the message position the prompt takes

	// context, compact_boundary
	ContextTokens int64  `json:"context_tokens,omitempty"` // context: tokens the next request will hold
	ContextWindow int64  `json:"context_window,omitempty"` // context: the model's window (as learned)
	Trigger       string `json:"trigger,omitempty"`        // compact_boundary: auto | manual | overflow
	TokensBefore  int64  `json:"tokens_before,omitempty"`  // compact_boundary
	TokensAfter   int64  `json:"tokens_after,omitempty"`   // compact_boundary

	// background_task
	Task *Task `json:"task,omitempty"`
}
