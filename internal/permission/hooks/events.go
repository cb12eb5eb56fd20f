package hooks

import (
	"encoding/json"
	"slices"
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
	PostToolBatch      = "PostToolBatch"
	StopFailure        = "StopFailure"
	PreModelSwitch     = "PreModelSwitch"
	PostModelSwitch    = "PostModelSwitch"
)

// claudeOnly are Claude Code 2.1's events that have no moment in tandem
// (docs/hooks.md says why for each): settings may name them, as Claude
// Code's do, and their hooks never run.
func claudeOnly() []string {
	return []string{"UserPromptExpansion", "PermissionDenied",
		"Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
		"WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded",
		"MessageDisplay", "PreSkillShellCommand"}
}

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
	case PostToolBatch:
		return eventSpec{exit2: exit2Block}, true
	case StopFailure:
		return eventSpec{matchOn: func(in Input) string { return in.Error }}, true
	case PreModelSwitch, PostModelSwitch:
		return eventSpec{matchOn: func(in Input) string { return in.ToModel }}, true
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

// Events lists the events tandem fires, for messages and docs.
func Events() []string {
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
		PostToolBatch, Notification, Stop, StopFailure, SubagentStart, SubagentStop, PreCompact, PostCompact,
		PreModelSwitch, PostModelSwitch, SessionEnd}
}

// ClaudeOnly lists Claude Code's events that tandem accepts in settings
// but never fires.
func ClaudeOnly() []string { return claudeOnly() }

// Known reports whether tandem fires event.
func Known(event string) bool {
	_, ok := spec(event)
	return ok
}

// valid reports whether settings may name event: tandem fires it, or it is
// one of Claude Code's that has no moment here.
func valid(event string) bool { return Known(event) || slices.Contains(claudeOnly(), event) }

func eventList() string { return strings.Join(append(Events(), claudeOnly()...), ", ") }

// Values of Input fields that matchers select on.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
	// A model switch's source when tandem cannot tell the UI's command
	// from its picker or an SDK's set_model.
	SourceCommand = "command"

	NotifyPermissionPrompt = "permission_prompt"
	NotifyIdlePrompt       = "idle_prompt"

	// SessionEnd reasons (Claude Code's).
	EndClear           = "clear"
	EndResume          = "resume"
	EndLogout          = "logout"
	EndPromptInputExit = "prompt_input_exit"
	EndOther           = "other"

	// StopFailure error kinds tandem can tell apart (Claude Code's names).
	FailAuthentication = "authentication_failed"
	FailBilling        = "billing_error"
	FailRateLimit      = "rate_limit"
	FailOverloaded     = "overloaded"
	FailInvalidRequest = "invalid_request"
	FailModelNotFound  = "model_not_found"
	FailServer         = "server_error"
	FailMaxOutput      = "max_output_tokens"
	FailUnknown        = "unknown"
)

// ToolCall is one call of a PostToolBatch's batch.
type ToolCall struct {
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
}

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
	// PostToolUseFailure (the error text), StopFailure (its kind).
	Error string `json:"error,omitempty"`
	// StopFailure: the provider's message.
	ErrorDetails string `json:"error_details,omitempty"`
	IsInterrupt  bool   `json:"is_interrupt,omitempty"`
	// PostToolBatch: every call of the batch.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// PreModelSwitch, PostModelSwitch ("source" is Source).
	FromModel      string  `json:"from_model,omitempty"`
	ToModel        string  `json:"to_model,omitempty"`
	RequestedModel *string `json:"requested_model,omitempty"`
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
