// Package appbackend is the terminal UI's Backend over the application's
// sessions: every method is a call on the session handle (session.Live)
// or the App, as any other front end makes them, so the UI runs a session
// exactly as `tandem run` does and either can resume the other's.
package appbackend

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tui"
)

// Options are the command line's choices for the sessions the UI opens.
type Options struct {
	// AddDirs and Runtime are given to every session the UI opens
	// (/clear and /resume too).
	AddDirs []string
	Runtime string
	// Asker answers permission questions besides the UI's own dialog
	// (nil: the dialog alone).
	Asker permission.Asker
	// FlagRules are --allowedTools / --disallowedTools.
	FlagRules []permission.Rule
	// MCPWait is how long the first turn waits for MCP servers.
	MCPWait time.Duration
	// Turn are the per-turn options of every turn.
	Turn session.TurnOptions
}

// Backend implements tui.Backend and its optional interfaces.
type Backend struct {
	a    *app.App
	opts Options
	sink *tui.Sink

	mu     sync.Mutex
	live   *session.Live
	waited bool // MCP servers were given their moment before the first turn
}

var _ tui.Backend = (*Backend)(nil)

// Features implements tui.Backend: what the open session's equipment
// provides (session.Live.Wired), each served by this backend's methods
// on the session handle.
func (b *Backend) Features() tui.Features {
	l := b.current()
	if l == nil {
		return tui.Features{}
	}
	w := l.Wired()
	f := tui.Features{Images: b, Memory: b, Subagents: b, Tasks: b}
	if w.Shell {
		f.Shell = b
	}
	if w.StatusLine {
		f.StatusLine = b
	}
	if w.MCP {
		f.MCP = b
	}
	if w.Engine {
		f.Permissions = b
	}
	if w.Checkpoints {
		f.Rewind = b
	}
	if w.Sandbox {
		f.Sandbox = b
	}
	if w.OutputStyles {
		f.OutputStyles = b
	}
	return f
}

// New returns a backend whose sessions send their events to sink. Open
// one with Open before the UI runs; Close the last one.
func New(a *app.App, sink *tui.Sink, opts Options) *Backend {
	return &Backend{a: a, opts: opts, sink: sink}
}

// OpenFirst opens the UI's first session (the command line's --resume,
// --continue, --model, --mode...).
func (b *Backend) OpenFirst(ctx context.Context, req session.OpenRequest) error {
	return b.open(ctx, req, "")
}

// open opens a session in place of the current one, which ends with
// endReason (the SessionEnd hook's reason).
func (b *Backend) open(ctx context.Context, req session.OpenRequest, endReason string) error {
	req.Sinks = []event.Sink{b.sink}
	req.AnswerByReply, req.Asker, req.FlagRules = true, b.opts.Asker, b.opts.FlagRules
	// Open resolves the folder's settings (config, trust, model) before a
	// new session is stored, as for `tandem run`.
	live, err := b.a.Manager.Open(ctx, req)
	if err != nil {
		return err
	}
	b.mu.Lock()
	old := b.live
	b.live, b.waited = live, false
	b.mu.Unlock()
	if old != nil {
		old.CloseFor(endReason)
	}
	return nil
}

// Close ends the open session, saying why (the SessionEnd hook's reason).
func (b *Backend) Close(reason string) {
	b.mu.Lock()
	l := b.live
	b.mu.Unlock()
	if l != nil {
		l.CloseFor(reason)
	}
}

func (b *Backend) current() *session.Live {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}

// Info implements tui.Backend: the session with the mode in force.
func (b *Backend) Info() tui.SessionInfo {
	l := b.current()
	if l == nil {
		return tui.SessionInfo{}
	}
	r := l.Info()
	return tui.SessionInfo{ID: r.ID, Title: r.Title, Cwd: r.Cwd, Model: r.Model, Mode: r.Mode, Runtime: r.Runtime, Usage: r.Usage, CostUSD: r.CostUSD,
		CanCompact: true}
}

// Run implements tui.Backend.
func (b *Backend) Run(ctx context.Context, prompt string) (event.Event, error) {
	return b.run(ctx, prompt, nil)
}

// run runs a turn with the command line's options and the prompt's images.
func (b *Backend) run(ctx context.Context, prompt string, images []message.Block) (event.Event, error) {
	l := b.current()
	b.mu.Lock()
	wait := !b.waited
	b.waited = true
	b.mu.Unlock()
	if wait {
		l.WaitMCP(ctx, b.opts.MCPWait)
	}
	opts := b.opts.Turn
	opts.Images = images
	return l.Run(ctx, prompt, opts)
}

// Reply implements tui.Backend.
func (b *Backend) Reply(requestID string, ans permission.Answer) error {
	return b.current().Reply(requestID, ans)
}

// SetMode implements tui.Backend.
func (b *Backend) SetMode(ctx context.Context, mode string) error {
	return b.current().SetMode(ctx, mode)
}

// SetModel implements tui.Backend.
func (b *Backend) SetModel(ctx context.Context, model string) error {
	return b.current().SetModel(ctx, model)
}

// Sessions implements tui.Backend: the folder's sessions.
func (b *Backend) Sessions(ctx context.Context) ([]session.Summary, error) {
	return b.a.Manager.List(ctx, session.ListOptions{Cwd: b.current().Info().Cwd, Limit: 200})
}

// Open implements tui.Backend: it resumes another session, or with ""
// starts a new one keeping this one's model and mode.
func (b *Backend) Open(ctx context.Context, id string) error {
	cur := b.Info()
	req := session.OpenRequest{ID: id, Cwd: cur.Cwd, AddDirs: b.opts.AddDirs, Runtime: b.opts.Runtime, Mode: cur.Mode, ModeFromRequest: true}
	reason := hooks.EndResume
	if id == "" { // /clear
		req.Model, reason = cur.Model, hooks.EndClear
	}
	return b.open(ctx, req, reason)
}

// History implements tui.Backend.
func (b *Backend) History(ctx context.Context) ([]message.Message, error) {
	return b.current().History(ctx)
}

// SubagentHistory implements tui.SubagentHistory.
func (b *Backend) SubagentHistory(ctx context.Context, msgs []message.Message) ([]session.SubagentRun, error) {
	return b.current().SubagentHistory(ctx, msgs)
}

// Rules implements tui.Permissions.
func (b *Backend) Rules() []permission.Rule { return b.current().Rules() }

// Explain implements tui.Permissions, for the folder the session runs in.
func (b *Backend) Explain(req permission.Request) permission.Explanation {
	return b.current().Explain(req)
}

// MCPStatus implements tui.MCPServers.
func (b *Backend) MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo) {
	servers, prompts, _ := b.current().MCPStatus()
	return servers, prompts
}

// MCPAction implements tui.MCPServers.
func (b *Backend) MCPAction(server, action string) error {
	return b.current().MCPAction(server, action)
}

// SandboxAllow implements tui.Sandboxed.
func (b *Backend) SandboxAllow(host string) error { return b.current().SandboxAllow(host) }

// Checkpoints implements tui.Rewinder.
func (b *Backend) Checkpoints(ctx context.Context) ([]checkpoint.Summary, error) {
	return b.current().Checkpoints(ctx)
}

// Rewind implements tui.Rewinder. The UI asks only between turns; the
// session reloads its record before the next one.
func (b *Backend) Rewind(ctx context.Context, number int, opt checkpoint.RewindOptions) (checkpoint.ResultSummary, error) {
	return b.current().Rewind(ctx, number, opt)
}

// Commands are the folder's custom commands and skills; each is sent as
// "/name args", which the runtime expands.
func Commands(a *app.App, cwd string) []tui.Command {
	var out []tui.Command
	for _, c := range a.SlashCommands(cwd) {
		name := c.Name
		out = append(out, tui.Command{Name: name, Args: c.ArgumentHint, Help: c.Description,
			Prompt: func(args string) string { return strings.TrimSpace("/" + name + " " + args) }})
	}
	return out
}
