package hooks

import (
	"encoding/json"
	"strings"
)

// Event names (Claude Code's).
const (
	PreToolUse         = "PreToolUse"
	PermissionRequest  = "PermissionRequest"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	Stop               = "Stop"
	Notification       = "Notification"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
)

// exit2 is what exit code 2 means for an event, as in Claude Code.
type exit2 int

const (
	exit2Error exit2 = iota // not blocking: stderr is reported to the user
	exit2Block              // blocks (or, for Stop/SubagentStop, keeps going); stderr is the reason
)

// eventSpec is what differs between events: which input field the matcher
// is tried against, whether plain stdout is context for the model, and
// what exit code 2 means.
type eventSpec struct {
	matchOn      func(Input) string // nil: the event has no matcher
	plainContext bool
	exit2        exit2
}

func toolName(in Input) string { return in.ToolName }

// specs lists every event tandem fires. It is a constant table.
func spec(event string) (eventSpec, bool) {
	switch event {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure:
		return eventSpec{matchOn: toolName, exit2: exit2Block}, true
	case UserPromptSubmit:
		return eventSpec{plainContext: true, exit2: exit2Block}, true
	case Stop:
		return eventSpec{exit2: exit2Block}, true
	case SubagentStop:
		return eventSpec{matchOn: func(in Input) string { return in.AgentType }, exit2: exit2Block}, true
	case SubagentStart:
		return eventSpec{matchOn: func(in Input) string { return in.AgentType }}, true
	case Notification:
		return eventSpec{matchOn: func(in Input) string { return in.NotificationType }}, true
	case SessionStart:
		return eventSpec{matchOn: func(in Input) string { return in.Source }, plainContext: true}, true
	case SessionEnd:
		return eventSpec{matchOn: func(in Input) string { return in.Reason }}, true
	case PreCompact:
		return eventSpec{matchOn: func(in Input) string { return in.Trigger }, exit2: exit2Block}, true
	case PostCompact:
		return eventSpec{matchOn: func(in Input) string { return in.Trigger }}, true
	}
	return eventSpec{}, false
}

// Events lists the event names, for messages and docs.
func Events() []string {
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
		Notification, Stop, SubagentStart, SubagentStop, PreCompact, PostCompact, SessionEnd}
}

// Known reports whether tandem fires event.
func Known(event string) bool {
	_, ok := spec(event)
	return ok
}

func eventList() string { return strings.Join(Events(), ", ") }

// Values of Input fields that matchers select on.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"

	NotifyPermissionPrompt = "permission_prompt"
	NotifyIdlePrompt       = "idle_prompt"
)

// Input is what a hook reads on stdin or in the POST body (Claude Code's
// field names; each event fills its own).
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  string `json:"hook_event_name"`

	// Tool events.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// PostToolUseFailure.
	Error       string `json:"error,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`
	// PermissionRequest.
	PermissionSuggestions json.RawMessage `json:"permission_suggestions,omitempty"`

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Stop, SubagentStop.
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	// SessionStart: startup | resume | clear | compact.
	Source string `json:"source,omitempty"`
	Model  string `json:"model,omitempty"`
	// SessionEnd: clear | logout | prompt_input_exit | other.
	Reason string `json:"reason,omitempty"`

	// Notification.
	Message          string `json:"message,omitempty"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`

	// SubagentStart, SubagentStop.
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`

	// PreCompact, PostCompact: manual | auto.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	CompactSummary     string `json:"compact_summary,omitempty"`
}
