// Package permission decides, for every tool call, whether it runs: the
// engine that implements modes, rules, the shell-command validator, the
// workspace boundary, asking and hooks. The contract it implements (modes,
// Request, Decision, Checker) is internal/permit, which the turn and the
// runtimes import instead of this package.
package permission

import "github.com/tandem-agent/tandem/internal/permit"

// The contract's names, so the engine's callers read permission.Mode and
// permission.Normal as before; each is owned by internal/permit.
type (
	Mode     = permit.Mode
	Request  = permit.Request
	Behavior = permit.Behavior
	Decision = permit.Decision
	Checker  = permit.Checker
	AllowAll = permit.AllowAll
	// Interaction is what an interactive tool's call asks the user.
	Interaction = permit.Interaction
)

const (
	Explore     = permit.Explore
	Normal      = permit.Normal
	Trust       = permit.Trust
	AcceptEdits = permit.AcceptEdits
	DontAsk     = permit.DontAsk
	AskEdits    = permit.AskEdits
	Allow       = permit.Allow
	Deny        = permit.Deny

	PlanApproval = permit.PlanApproval
	UserQuestion = permit.UserQuestion
	Elicitation  = permit.Elicitation
)

// Modes lists the modes a user chooses from: see permit.Modes.
func Modes() []Mode { return permit.Modes() }

// ParseMode reads a mode name: see permit.ParseMode.
func ParseMode(s string) (Mode, error) { return permit.ParseMode(s) }

// ModeList is Modes as help and error texts write them.
func ModeList() string { return permit.ModeList() }

// ClaudeName is the Claude Code name of a mode: see permit.ClaudeName.
func ClaudeName(m Mode) string { return permit.ClaudeName(m) }
