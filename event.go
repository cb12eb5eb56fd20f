package tandem

import (
	"encoding/json"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// EventType names one kind of event. docs/events.md describes each type
// and its fields with a JSON example.
type EventType string

// The event types, as docs/events.md lists them.
const (
	EventText              EventType = "text"               // assistant text delta
	EventThinking          EventType = "thinking"           // thinking delta (or a block's signature)
	EventToolUse           EventType = "tool_use"           // the model asked for a tool call (complete input)
	EventToolResult        EventType = "tool_result"        // a tool call finished
	EventToolOutput        EventType = "tool_output"        // streamed output of a running tool
	EventStatus            EventType = "status"             // session start (id, cwd, model, runtime, tools); notices
	EventResult            EventType = "result"             // the turn ended
	EventError             EventType = "error"              // something went wrong (the turn may go on)
	EventRetry             EventType = "retry"              // a provider call is retried
	EventPermissionRequest EventType = "permission_request" // a tool call waits for a decision
	EventPermissionReply   EventType = "permission_reply"   // that decision was made
	EventToolTimeout       EventType = "tool_timeout"       // a tool ran past its time limit and was stopped
	EventModeChanged       EventType = "mode_changed"       // the permission mode changed
	EventTaskUpdate        EventType = "task_update"        // the todo list changed
	EventRewindPoint       EventType = "rewind_point"       // a point the session can be rewound to
	EventContext           EventType = "context"            // how full the model's context window is
	EventCompactBoundary   EventType = "compact_boundary"   // the conversation was compacted
	EventKeepAlive         EventType = "keep_alive"         // transport heartbeat (HTTP server only)
	EventDone              EventType = "done"               // the turn's stream is closed
	EventSandboxDenial     EventType = "sandbox_denial"     // the OS sandbox refused a path or a host (docs/sandbox.md)
	EventDiagnostics       EventType = "diagnostics"        // an edit made new errors a language server reports (docs/lsp.md)
	EventBackgroundTask    EventType = "background_task"    // a background task (shell, sub-agent) started or ended (docs/everyday.md)
)

// Result subtypes (Event.Subtype and Result.Subtype of a result event).
const (
	SubtypeSuccess          = "success"
	SubtypeMaxTurns         = "error_max_turns"
	SubtypeMaxBudget        = "error_max_budget_usd"
	SubtypeInterrupted      = "interrupted"
	SubtypeError            = "error_during_execution"
	SubtypeProviderError    = "error_provider"
	SubtypePermissionDenied = "error_permission"
)

// Usage counts tokens of one model call or a sum of calls.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens,omitempty"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens,omitempty"`
	ReasoningTokens     int64 `json:"reasoning_tokens,omitempty"`
}

// Todo is one entry of the agent's task list (the TodoWrite tool).
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"` // pending | in_progress | completed
	ActiveForm string `json:"activeForm,omitempty"`
}

// Denial is a tool call that was refused.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// Event is one element of a session's event stream: the same stream, with
// the same JSON form, that `tandem run --output-format stream-json` prints
// and the HTTP server sends. Type, SessionID, Seq and Time are always set;
// the other fields belong to particular types (see docs/events.md) and are
// zero otherwise. Seq numbers a session's events without gaps or repeats,
// across turns and processes.
type Event struct {
	Type      EventType `json:"type"`
	SessionID string    `json:"session_id"`
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"ts"`
	// ParentToolUseID marks an event of a sub-agent: the id of the Agent
	// tool call that started it. Empty for the session's own events.
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
	Subtype           string          `json:"subtype,omitempty"`
	Result            string          `json:"result,omitempty"`
	Usage             *Usage          `json:"usage,omitempty"`
	CostUSD           *float64        `json:"total_cost_usd,omitempty"` // nil: unknown (a model without prices)
	DurationMS        int64           `json:"duration_ms,omitempty"`
	NumTurns          int             `json:"num_turns,omitempty"`
	PermissionDenials []Denial        `json:"permission_denials,omitempty"`
	StructuredOutput  json.RawMessage `json:"structured_output,omitempty"`

	// error, retry
	Error      string `json:"error,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	DelayMS    int64  `json:"delay_ms,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`

	// permission_request, permission_reply
	RequestID  string `json:"request_id,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Suggestion string `json:"suggestion,omitempty"` // the rule "allow always" would save
	Decision   string `json:"decision,omitempty"`   // permission_reply: allow_once | allow_always | deny

	// mode_changed
	PreviousMode string `json:"previous_mode,omitempty"`

	// task_update
	Todos []Todo `json:"todos,omitempty"`

	// rewind_point
	Checkpoint int   `json:"checkpoint,omitempty"`
	Position   int64 `json:"position,omitempty"`

	// context, compact_boundary
	ContextTokens int64  `json:"context_tokens,omitempty"`
	ContextWindow int64  `json:"context_window,omitempty"`
	Trigger       string `json:"trigger,omitempty"` // compact_boundary: auto | manual | overflow
	TokensBefore  int64  `json:"tokens_before,omitempty"`
	TokensAfter   int64  `json:"tokens_after,omitempty"`

	// background_task
	Task *Task `json:"task,omitempty"`
}

// Task is a background task of the session: a shell started with
// run_in_background or a background sub-agent.
type Task struct {
	// ID names the task to stop it: "bash_3", "agent_2".
	ID string `json:"id"`
	// Kind is "shell" or "agent".
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	// Status is "running" until it ends, then "completed", "failed" or
	// "stopped".
	Status    string    `json:"status"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	// Summary says how it ended.
	Summary string `json:"summary,omitempty"`
	// Stoppable is false for a task tandem can list but not stop.
	Stoppable bool `json:"stoppable"`
	// SessionID is a sub-agent's own stored session.
	SessionID string `json:"agent_session_id,omitempty"`
}

// publicEvent copies an internal event into the public form. A test fills
// every field of the internal struct and compares the two JSON forms, so a
// field added there and not here fails it.
func publicEvent(e event.Event) Event {
	out := Event{
		Type: EventType(e.Type), SessionID: e.SessionID, Seq: e.Seq, Time: e.Time, ParentToolUseID: e.ParentToolUseID,
		Text: e.Text, Signature: e.Signature, MessageID: e.MessageID,
		ToolUseID: e.ToolUseID, ToolName: e.ToolName, Input: e.Input, Output: e.Output, Stream: e.Stream,
		IsError: e.IsError, Diff: e.Diff, Meta: e.Meta, TimeoutMS: e.TimeoutMS,
		Cwd: e.Cwd, Model: e.Model, Runtime: e.Runtime, Tools: e.Tools, Mode: e.Mode, Message: e.Message,
		Subtype: e.Subtype, Result: e.Result, Usage: publicUsage(e.Usage), CostUSD: e.CostUSD,
		DurationMS: e.DurationMS, NumTurns: e.NumTurns, StructuredOutput: e.StructuredOutput,
		Error: e.Error, Attempt: e.Attempt, DelayMS: e.DelayMS, HTTPStatus: e.HTTPStatus,
		RequestID: e.RequestID, Summary: e.Summary, Suggestion: e.Suggestion, Decision: e.Decision,
		PreviousMode: e.PreviousMode, Checkpoint: e.Checkpoint, Position: e.Position,
		ContextTokens: e.ContextTokens, ContextWindow: e.ContextWindow, Trigger: e.Trigger,
		TokensBefore: e.TokensBefore, TokensAfter: e.TokensAfter,
	}
	for _, d := range e.PermissionDenials {
		out.PermissionDenials = append(out.PermissionDenials, Denial(d))
	}
	for _, t := range e.Todos {
		out.Todos = append(out.Todos, Todo(t))
	}
	if e.Task != nil {
		t := Task(*e.Task)
		out.Task = &t
	}
	return out
}

func publicUsage(u *message.Usage) *Usage {
	if u == nil {
		return nil
	}
	p := Usage(*u)
	return &p
}

func internalUsage(u Usage) message.Usage { return message.Usage(u) }
