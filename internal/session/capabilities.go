package session

import (
	"context"
	"time"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/prompt"
)

// Capabilities are what an Equipment offers beyond running turns, named
// here once so that no front end declares an interface of its own or
// asserts one on the equipment: a front end calls the Live's methods
// (Reply, MCPStatus, Extensions, Rewind, ...), which use these. A nil
// field is a capability this equipment lacks; the Live's method then says
// so (ErrNotWired) or does without.
type Capabilities struct {
	// Permissions answers the session's permission questions.
	Permissions Permissions
	// Engine is the permission engine's view: the mode in force, its
	// rules, how a call would be judged.
	Engine PermissionEngine
	// MCP controls the session's MCP servers.
	MCP MCP
	// Extensions lists the skills, commands and agents the session loaded.
	Extensions Extensions
	// Sandbox widens the session's sandbox.
	Sandbox Sandbox
	// ModelSwitch runs hooks around a model switch.
	ModelSwitch ModelSwitchHooks
	// Checkpoints records and rewinds the session's checkpoints.
	Checkpoints *checkpoint.Service
	// Shell runs a user's own `!cmd` through the session's permission
	// engine and sandbox.
	Shell UserShell
	// StatusLine runs the statusLine command of the session's settings.
	StatusLine StatusLine
	// OutputStyles lists the output styles and chooses the folder's.
	OutputStyles OutputStyles
}

// OutputStyles are the output styles a session may use (Claude Code's
// /config "Output style").
type OutputStyles interface {
	// OutputStyles lists them and names the one in force ("": none).
	OutputStyles() ([]prompt.Style, string)
	// SetOutputStyle saves name as the folder's local choice and returns
	// the settings file written; it applies from the next session (or
	// /clear), as the system prompt is kept for a session's life.
	SetOutputStyle(name string) (string, error)
}

// UserShell runs a command the user typed (`!cmd` in the terminal UI) the
// way the session's Bash tool would: judged, confined, its output returned.
type UserShell interface {
	UserShell(ctx context.Context, command string) (string, error)
}

// StatusLine is the statusLine command of the session's settings (user,
// or a trusted project's).
type StatusLine interface {
	HasStatusLine() bool
	StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error)
}

// Permissions answers a live session's permission questions.
type Permissions interface {
	// Reply fails with permission.ErrUnknownRequest for a question the
	// session does not have.
	Reply(requestID string, a permission.Answer) error
	// Pending lists the open questions.
	Pending() []permission.Question
}

// PermissionEngine is what a front end reads of the session's permission
// engine (the permission.Engine implements it).
type PermissionEngine interface {
	// Mode is the mode in force (config defaults included, canonical:
	// explore, not Claude Code's "plan").
	Mode() permission.Mode
	// SetMode changes it for the calls that follow; the engine emits
	// mode_changed.
	SetMode(permission.Mode)
	Rules() []permission.Rule
	Explain(req permission.Request) permission.Explanation
}

// MCP controls a live session's MCP servers.
type MCP interface {
	// MCPStatus lists the servers (state, tools, errors) and the prompts
	// they offer.
	MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo)
	// MCPAction enables, disables, approves or reconnects one server.
	MCPAction(server, action string) error
	// WaitMCP gives the servers a moment to connect before the first
	// model call, so their tools are offered from the start.
	WaitMCP(ctx context.Context, timeout time.Duration)
}

// Extensions is what a live session loaded when it was equipped.
type Extensions interface {
	Extensions() *listing.Extensions
	// SlashCommands are the commands the session accepts (built-ins that
	// run as turns, custom commands, user-invocable skills).
	SlashCommands() []listing.SlashCommand
}

// Sandbox widens a live session's sandbox: the allowance a network
// sandbox_denial offers.
type Sandbox interface {
	SandboxAllow(host string) error
}

// ModelSwitchHooks runs hooks around a model switch (the app's
// PreModelSwitch, which may refuse it, and PostModelSwitch).
type ModelSwitchHooks interface {
	PreModelSwitch(ctx context.Context, from, to string) error
	PostModelSwitch(ctx context.Context, from, to string)
}

// Wired says which of the session's capabilities its equipment provides:
// a front end shows or hides what depends on them from this, and never
// learns it by trying a call or asserting a type.
type Wired struct {
	Permissions, Engine, MCP, Extensions, Sandbox, Checkpoints, Shell, StatusLine, OutputStyles bool
}

// Wired is what this session's equipment provides.
func (l *Live) Wired() Wired {
	c := l.caps
	return Wired{
		Permissions: c.Permissions != nil, Engine: c.Engine != nil, MCP: c.MCP != nil,
		Extensions: c.Extensions != nil, Sandbox: c.Sandbox != nil, Checkpoints: c.Checkpoints != nil,
		Shell: c.Shell != nil, StatusLine: c.StatusLine != nil, OutputStyles: c.OutputStyles != nil,
	}
}
