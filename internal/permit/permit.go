// Package permit is the permission contract: the modes, a call to judge
// (Request), the verdict (Decision) and who judges (Checker). The turn,
// the agent loop and the claude-code runtime depend only on it; the engine
// that implements modes, rules, the shell-command validator, the workspace
// boundary, asking and hooks is internal/permission, which links the shell
// parser and the file tools' previews that this leaf keeps out of them.
package permit

import (
	"context"
	"encoding/json"
)

// Mode is a permission mode.
type Mode string

const (
	Explore Mode = "explore" // read-only
	Normal  Mode = "normal"  // default: reads and workspace edits run, unsafe shell asks
	Trust   Mode = "trust"   // everything inside the boundary runs; protected paths ask
	// AcceptEdits and DontAsk are Claude Code's modes kept as their own
	// behaviours (see ParseMode for the aliases).
	AcceptEdits Mode = "acceptEdits"
	DontAsk     Mode = "dontAsk"
	// AskEdits is what Claude Code's "default" mode means: normal, but every
	// file edit asks first. tandem's own CLI reads "default" as normal; the
	// Claude Code CLI protocol (internal/cliproto) asks for this one.
	AskEdits Mode = "askEdits"
)

// Request is one tool call to judge.
type Request struct {
	SessionID string
	ToolUseID string
	Tool      string
	Input     json.RawMessage
	// Cwd is the folder a shell command would run in (the shell's current
	// folder, which may differ from the workspace root).
	Cwd string
	// ReadOnly is true when the tool declares it changes nothing.
	ReadOnly bool
	// Interaction is set when the call is itself a question to the user
	// (the tool declares it, tool.Interactive): it is always asked, in
	// every mode, and front ends render it by this kind.
	Interaction Interaction
}

// Interaction is what an interactive tool's call puts to the user.
type Interaction string

const (
	// PlanApproval: ExitPlanMode's plan, approved (naming the mode to work
	// in) or sent back with feedback.
	PlanApproval Interaction = "plan_approval"
	// UserQuestion: AskUserQuestion's 1–4 multiple-choice questions,
	// answered with the chosen labels or free text.
	UserQuestion Interaction = "user_question"
	// Elicitation: an MCP server's question (elicitation.go), answered
	// with the form's values (accept), declined or cancelled.
	Elicitation Interaction = "elicitation"
)

// Behavior is the outcome.
type Behavior string

const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
)

// Decision is the verdict for one call.
type Decision struct {
	Behavior Behavior
	// Message explains a denial to the model (and the user).
	Message string
	// UpdatedInput, when set, replaces the call's input (a hook may rewrite it).
	UpdatedInput json.RawMessage
	// Rule names the rule that decided, for logs and the UI.
	Rule string
	// Mode, with an allowed plan approval (Request.Interaction), is the
	// mode the user chose to work in from now on; the engine that asked
	// switches to it.
	Mode Mode
	// Interrupt (with a deny) also ends the turn: a hook answered
	// `"continue": false` or a PermissionRequest deny with interrupt.
	Interrupt bool
}

// Checker judges tool calls. Asking the user happens inside Check: it
// blocks until the user answers or ctx ends.
type Checker interface {
	Check(ctx context.Context, req Request) (Decision, error)
}

// AllowAll runs everything; it is what `--permission-mode trust` means until
// the engine is wired, and what tests use when permissions are not the point.
type AllowAll struct{}

// Check allows.
func (AllowAll) Check(context.Context, Request) (Decision, error) {
	return Decision{Behavior: Allow, Rule: "allow-all"}, nil
}
