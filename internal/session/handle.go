package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/tandem-agent/tandem/internal/prompt"
	"time"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
)

// ErrNotWired is the error of a Live method whose capability the session's
// equipment lacks (a test's wiring, an embedding program's): the HTTP
// server answers it with 501.
var ErrNotWired = errors.New("not wired for this session")

// Reply answers one of the session's pending permission questions
// (permission.ErrUnknownRequest when it has no such question).
func (l *Live) Reply(requestID string, ans permission.Answer) error {
	if p := l.caps.Permissions; p != nil {
		return p.Reply(requestID, ans)
	}
	return fmt.Errorf("reply to %s: %w", requestID, permission.ErrUnknownRequest)
}

// Pending lists the session's open permission questions.
func (l *Live) Pending() []permission.Question {
	if p := l.caps.Permissions; p != nil {
		return p.Pending()
	}
	return nil
}

// Rules are the permission rules the session judges by (none without a
// permission engine).
func (l *Live) Rules() []permission.Rule {
	if e := l.caps.Engine; e != nil {
		return e.Rules()
	}
	return nil
}

// Explain says how a call would be judged in this session and by which
// rule, without asking or running hooks.
func (l *Live) Explain(req permission.Request) permission.Explanation {
	e := l.caps.Engine
	if e == nil {
		return permission.Explanation{Action: permission.ActionAllow, Rule: "no permission engine"}
	}
	r := l.Snapshot()
	req.SessionID, req.Cwd = r.ID, r.Cwd
	return e.Explain(req)
}

// MCPStatus lists the session's MCP servers and their prompts; a session
// without MCP control gives empty lists and ok false.
func (l *Live) MCPStatus() (servers []mcp.ServerStatus, prompts []mcp.PromptInfo, ok bool) {
	m := l.caps.MCP
	if m == nil {
		return []mcp.ServerStatus{}, []mcp.PromptInfo{}, false
	}
	servers, prompts = m.MCPStatus()
	return servers, prompts, true
}

// MCPAction enables, disables, approves or reconnects one of the
// session's MCP servers (ErrNotWired without MCP control).
func (l *Live) MCPAction(server, action string) error {
	m := l.caps.MCP
	if m == nil {
		return fmt.Errorf("%s %s: this session has no MCP servers: %w", action, server, ErrNotWired)
	}
	return m.MCPAction(server, action)
}

// WaitMCP gives the session's MCP servers up to timeout to connect before
// the first model call, so their tools are offered from the start.
func (l *Live) WaitMCP(ctx context.Context, timeout time.Duration) {
	if m := l.caps.MCP; m != nil {
		m.WaitMCP(ctx, timeout)
	}
}

// Extensions lists the skills, commands and agents the session loaded
// when it was equipped; ok is false when its equipment does not say (the
// caller may list its folder's instead).
func (l *Live) Extensions() (ext *listing.Extensions, ok bool) {
	if x := l.caps.Extensions; x != nil {
		return x.Extensions(), true
	}
	return nil, false
}

// SlashCommands lists the commands the session accepts (nil when its
// equipment does not say).
func (l *Live) SlashCommands() []listing.SlashCommand {
	if x := l.caps.Extensions; x != nil {
		return x.SlashCommands()
	}
	return nil
}

// SandboxAllow lets the session's commands reach host until it ends: the
// allowance a network sandbox_denial offers (ErrNotWired without a
// sandbox control).
func (l *Live) SandboxAllow(host string) error {
	sb := l.caps.Sandbox
	if sb == nil {
		return fmt.Errorf("allow %s: this session has no sandbox: %w", host, ErrNotWired)
	}
	return sb.SandboxAllow(host)
}

// UserShell runs a command the user typed through the session's
// permission engine and sandbox (ErrNotWired for a runtime that runs no
// commands of its own).
func (l *Live) UserShell(ctx context.Context, command string) (string, error) {
	sh := l.caps.Shell
	if sh == nil {
		return "", fmt.Errorf("this session's runtime runs no commands of its own: %w", ErrNotWired)
	}
	return sh.UserShell(ctx, command)
}

// HasStatusLine says whether the session's settings name a statusLine
// command.
func (l *Live) HasStatusLine() bool {
	return l.caps.StatusLine != nil && l.caps.StatusLine.HasStatusLine()
}

// StatusLine runs the settings' statusLine command and returns its first
// line ("" without one).
func (l *Live) StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error) {
	if !l.HasStatusLine() {
		return "", nil
	}
	return l.caps.StatusLine.StatusLine(ctx, contextTokens, contextWindow)
}

// History is the session's stored conversation.
func (l *Live) History(ctx context.Context) ([]message.Message, error) {
	return l.mgr.store.Messages(ctx, l.ID())
}

// SubagentHistory finds the sub-agent runs of msgs (the session's
// conversation) in the store.
func (l *Live) SubagentHistory(ctx context.Context, msgs []message.Message) ([]SubagentRun, error) {
	return l.mgr.Subagents(ctx, l.ID(), msgs)
}

// Checkpoints lists the session's checkpoints (ErrNotWired when its
// equipment keeps none).
func (l *Live) Checkpoints(ctx context.Context) ([]checkpoint.Summary, error) {
	cs := l.caps.Checkpoints
	r := l.Snapshot()
	if cs == nil {
		return nil, fmt.Errorf("checkpoints of session %s: %w", r.ID, ErrNotWired)
	}
	cps, err := cs.List(ctx, r.ID)
	if err != nil {
		return nil, fmt.Errorf("checkpoints of session %s: %w", r.ID, err)
	}
	return checkpoint.Summaries(cps, r.Cwd), nil
}

// Rewind goes back to checkpoint number (files, conversation or both, as
// opt says), holding the session's lease so no turn runs meanwhile; the
// next turn reloads the record. Call it between turns.
func (l *Live) Rewind(ctx context.Context, number int, opt checkpoint.RewindOptions) (checkpoint.ResultSummary, error) {
	cs := l.caps.Checkpoints
	r := l.Snapshot()
	if cs == nil {
		return checkpoint.ResultSummary{}, fmt.Errorf("rewind session %s: %w", r.ID, ErrNotWired)
	}
	release, err := l.mgr.Hold(ctx, r.ID)
	if err != nil {
		return checkpoint.ResultSummary{}, fmt.Errorf("rewind: %w", err)
	}
	defer release()
	opt.Roots = l.roots
	res, err := cs.Rewind(ctx, r.ID, number, opt)
	if err != nil {
		return checkpoint.ResultSummary{}, err
	}
	return res.Summarize(r.Cwd), nil
}

// OutputStyles lists the output styles the session may use and the one in
// force ("" none); nil when its runtime has none of its own.
func (l *Live) OutputStyles() ([]prompt.Style, string) {
	if l.caps.OutputStyles == nil {
		return nil, ""
	}
	return l.caps.OutputStyles.OutputStyles()
}

// SetOutputStyle saves name as the folder's output style (from the next
// session or /clear) and returns the settings file written.
func (l *Live) SetOutputStyle(name string) (string, error) {
	if l.caps.OutputStyles == nil {
		return "", fmt.Errorf("this session has no output styles: %w", ErrNotWired)
	}
	return l.caps.OutputStyles.SetOutputStyle(name)
}
