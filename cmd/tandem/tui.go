package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/trust"
	"github.com/tandem-agent/tandem/internal/tui"
)

// opensUI reports whether a `tandem` invocation without a subcommand is a
// person at a terminal rather than a program driving tandem as the Claude
// Code CLI: as `claude` does, a terminal without -p gets the interactive
// UI; -p, the stream formats or redirected input and output get the CLI
// protocol (docs/claude-code-cli.md).
func opensUI(args []string) bool {
	if !isatty.IsTerminal(os.Stdin.Fd()) || !isatty.IsTerminal(os.Stdout.Fd()) {
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-p", "--print", "--output-format", "--input-format":
			return false
		}
	}
	return true
}

// rootRun is `tandem` without a subcommand: the terminal UI on a
// terminal, else the help (nothing to talk to). Invocations with Claude
// Code's flags that are not for the UI never get here: main hands them to
// the CLI protocol.
func rootRun(cmd *cobra.Command, g *globalFlags, f *runFlags, args []string) error {
	if !opensUI(args) {
		return cmd.Help()
	}
	return runTUI(cmd, g, f, strings.Join(args, " "))
}

// runTUI opens the terminal UI on a session opened exactly as `tandem run`
// opens one, so either can resume the other's sessions.
func runTUI(cmd *cobra.Command, g *globalFlags, f *runFlags, prompt string) error {
	if err := f.validate(); err != nil {
		return err
	}
	sink := tui.NewSink()
	// Warnings (an MCP server that failed) would scribble over the screen:
	// once it is up they become notices in the conversation.
	warn := &noticeWriter{sink: sink, stderr: cmd.ErrOrStderr()}
	sbMode, err := f.sandbox.mode()
	if err != nil {
		return err
	}
	a, err := app.Open(app.Options{Home: g.home, Version: version(), ServerAsks: true, Stderr: warn, TrustProject: f.trustProject, RequireTrust: f.requireTrust, Sandbox: sbMode})
	if err != nil {
		return err
	}
	defer a.Close()
	sayStaleCatalog(warn, a)
	if a.FlagRules, err = flagRules(f); err != nil {
		return err
	}
	ctx, stop := signalContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	be := &tuiBackend{a: a, f: f, sink: sink}
	req := session.OpenRequest{ID: f.resume, Continue: f.cont, Cwd: f.cwd, AddDirs: f.addDirs,
		Model: f.model, Runtime: f.runtime, Mode: f.mode, ModeFromRequest: true}
	if f.resume == "" {
		// Like Claude Code's "Do you trust the files in this folder?",
		// with the list of what trusting would enable; no runs untrusted
		// (those settings left out) unless --require-trust.
		if st, err := a.TrustStatus(f.cwd); err == nil && !st.Trusted && len(st.NeedsTrust) > 0 && !a.TrustsEveryFolder() {
			if !askTrust(cmd, a, st) && f.requireTrust {
				fmt.Fprintln(cmd.ErrOrStderr(), "Nothing was started (--require-trust).")
				return exitError{code: 1}
			}
		}
	}
	err = be.open(ctx, req, "")
	if err != nil {
		return err
	}
	// Leaving the UI (ctrl+d, /exit) is Claude Code's prompt_input_exit; a
	// signal is "other".
	defer func() {
		reason := hooks.EndPromptInputExit
		if ctx.Err() != nil {
			reason = hooks.EndOther
		}
		be.close(reason)
	}()
	warn.ui.Store(true)
	err = tui.Run(ctx, tui.Options{Backend: be, Sink: sink, Prompt: prompt,
		HistoryFile: filepath.Join(a.Paths.DataDir, "prompt-history.jsonl"),
		Commands:    sessionCommands(a, be.Info().Cwd),
		Models: func() []tui.ModelOption {
			var out []tui.ModelOption
			for _, c := range a.ModelChoices() {
				out = append(out, tui.ModelOption{ID: c.ID, Status: c.Status})
			}
			return out
		}})
	if id := be.Info().ID; id != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "Resume this session: tandem --resume %s\n", id)
	}
	return err
}

// askTrust lists what the folder's project files set that needs trust
// and asks on the terminal, before the UI starts, as Claude Code asks
// before it reads a new folder's settings; yes trusts it for good (tandem
// trust), no starts without those settings. Nothing is stored before the
// answer.
func askTrust(cmd *cobra.Command, a *app.App, st trust.Status) bool {
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "Do you trust the files in %s?\nTrusting it (and its subfolders) would enable these project settings:\n", st.Dir)
	for _, x := range st.NeedsTrust {
		fmt.Fprintf(w, "  %s\n", x)
	}
	fmt.Fprintf(w, "Without trust, everything else in the project's files applies and these are left out.\nTrust this folder? [y/N] ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		return false
	}
	if _, err := a.TrustFolder(st.Dir); err != nil {
		fmt.Fprintf(w, "tandem: trust %s: %v\n", st.Dir, err)
		return false
	}
	return true
}

// tuiBackend is the UI's session: the same Manager, Live and helpers as
// `tandem run`.
type tuiBackend struct {
	a    *app.App
	f    *runFlags
	sink *tui.Sink

	mu     sync.Mutex
	live   *session.Live
	waited bool // MCP servers were given their moment before the first turn
}

// open opens a session in place of the current one, which ends with
// endReason (the SessionEnd hook's reason).
func (b *tuiBackend) open(ctx context.Context, req session.OpenRequest, endReason string) error {
	req.Sinks = []event.Sink{b.sink}
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

func (b *tuiBackend) close(reason string) {
	b.mu.Lock()
	l := b.live
	b.mu.Unlock()
	if l != nil {
		l.CloseFor(reason)
	}
}

func (b *tuiBackend) current() *session.Live {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}

func (b *tuiBackend) Info() tui.SessionInfo {
	l := b.current()
	if l == nil {
		return tui.SessionInfo{}
	}
	r := l.Snapshot()
	mode := r.Mode
	if m, ok := l.Checker.(interface{ Mode() permission.Mode }); ok {
		mode = string(m.Mode()) // the mode in force, config defaults included
	}
	return tui.SessionInfo{ID: r.ID, Title: r.Title, Cwd: r.Cwd, Model: r.Model, Mode: mode, Runtime: r.Runtime, Usage: r.Usage, CostUSD: r.CostUSD,
		CanCompact: true}
}

func (b *tuiBackend) Run(ctx context.Context, prompt string) (event.Event, error) {
	l := b.current()
	b.mu.Lock()
	wait := !b.waited
	b.waited = true
	b.mu.Unlock()
	if wait {
		app.WaitMCP(ctx, l, b.f.mcpWait)
	}
	return l.Run(ctx, prompt, session.TurnOptions{MaxTurns: b.f.maxTurns, MaxBudgetUSD: b.f.maxBudget, AppendSystemPrompt: b.f.appendSystem,
		SystemPrompt: b.f.systemPrompt, DisallowedTools: b.f.disallowed, Effort: b.f.effort})
}

func (b *tuiBackend) Reply(requestID string, ans permission.Answer) error {
	eq, ok := b.current().Equipment().(interface {
		Reply(string, permission.Answer) error
	})
	if !ok {
		return fmt.Errorf("reply to %s: %w", requestID, permission.ErrUnknownRequest)
	}
	return eq.Reply(requestID, ans)
}

func (b *tuiBackend) SetMode(ctx context.Context, mode string) error {
	return b.current().Update(ctx, "", "", mode)
}

func (b *tuiBackend) SetModel(ctx context.Context, model string) error {
	l := b.current()
	if err := b.a.CheckModel(model, l.Snapshot().Cwd); err != nil {
		return fmt.Errorf("model %s: %w", model, err)
	}
	return l.Update(ctx, model, "", "")
}

func (b *tuiBackend) Sessions(ctx context.Context) ([]store.Session, error) {
	return b.a.Store.ListSessions(ctx, store.ListOptions{Cwd: b.current().Snapshot().Cwd, Limit: 200})
}

// Open resumes another session, or with "" starts a new one keeping this
// one's model and mode.
func (b *tuiBackend) Open(ctx context.Context, id string) error {
	cur := b.Info()
	req := session.OpenRequest{ID: id, Cwd: cur.Cwd, AddDirs: b.f.addDirs, Runtime: b.f.runtime, Mode: cur.Mode, ModeFromRequest: true}
	reason := hooks.EndResume
	if id == "" { // /clear
		req.Model, reason = cur.Model, hooks.EndClear
	}
	return b.open(ctx, req, reason)
}

func (b *tuiBackend) History(ctx context.Context) ([]message.Message, error) {
	return b.a.Store.Messages(ctx, b.current().Snapshot().ID)
}

// The UI finds this through an interface check: keep it implemented.
var _ tui.SubagentHistory = (*tuiBackend)(nil)

// SubagentHistory implements tui.SubagentHistory.
func (b *tuiBackend) SubagentHistory(ctx context.Context, msgs []message.Message) ([]store.SubagentRun, error) {
	return b.a.Store.SubagentRuns(ctx, b.current().Snapshot().ID, msgs)
}

// The UI finds these through interface checks: keep them implemented.
var (
	_ tui.Rewinder    = (*tuiBackend)(nil)
	_ tui.MCPServers  = (*tuiBackend)(nil)
	_ tui.Permissions = (*tuiBackend)(nil)
)

// Rules implements tui.Permissions, from the session's checker (the
// permission engine offers the same methods).
func (b *tuiBackend) Rules() []permission.Rule {
	if e, ok := b.current().Checker.(tui.Permissions); ok {
		return e.Rules()
	}
	return nil
}

// Explain implements tui.Permissions, for the folder the session runs in.
func (b *tuiBackend) Explain(req permission.Request) permission.Explanation {
	l := b.current()
	e, ok := l.Checker.(tui.Permissions)
	if !ok {
		return permission.Explanation{Action: permission.ActionAllow, Rule: "no permission engine"}
	}
	r := l.Snapshot()
	req.SessionID, req.Cwd = r.ID, r.Cwd
	return e.Explain(req)
}

// MCPStatus implements tui.MCPServers.
func (b *tuiBackend) MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo) {
	if c, ok := app.MCPOf(b.current()); ok {
		return c.MCPStatus()
	}
	return nil, nil
}

// MCPAction implements tui.MCPServers.
func (b *tuiBackend) MCPAction(server, action string) error {
	c, ok := app.MCPOf(b.current())
	if !ok {
		return fmt.Errorf("%s %s: this session has no MCP servers wired", action, server)
	}
	return c.MCPAction(server, action)
}

// SandboxAllow implements tui.Sandboxed.
func (b *tuiBackend) SandboxAllow(host string) error {
	sb, ok := app.SandboxOf(b.current())
	if !ok {
		return fmt.Errorf("allow %s: this session has no sandbox wired", host)
	}
	return sb.SandboxAllow(host)
}

// Checkpoints implements tui.Rewinder.
func (b *tuiBackend) Checkpoints(ctx context.Context) ([]checkpoint.Summary, error) {
	r := b.current().Snapshot()
	cps, err := b.a.Checkpoints.List(ctx, r.ID)
	if err != nil {
		return nil, fmt.Errorf("checkpoints of session %s: %w", r.ID, err)
	}
	return checkpoint.Summaries(cps, r.Cwd), nil
}

// Rewind implements tui.Rewinder. The UI asks only between turns; the
// session reloads its record before the next one.
func (b *tuiBackend) Rewind(ctx context.Context, number int, opt checkpoint.RewindOptions) (checkpoint.ResultSummary, error) {
	l := b.current()
	r := l.Snapshot()
	release, err := b.a.Manager.Hold(ctx, r.ID)
	if err != nil {
		return checkpoint.ResultSummary{}, fmt.Errorf("rewind: %w", err)
	}
	defer release()
	opt.Roots = l.Roots
	res, err := b.a.Checkpoints.Rewind(ctx, r.ID, number, opt)
	if err != nil {
		return checkpoint.ResultSummary{}, err
	}
	return res.Summarize(r.Cwd), nil
}

// sessionCommands are the folder's custom commands and skills; each is
// sent as "/name args", which the runtime expands.
func sessionCommands(a *app.App, cwd string) []tui.Command {
	var out []tui.Command
	for _, c := range a.SlashCommands(cwd) {
		name := c.Name
		out = append(out, tui.Command{Name: name, Args: c.ArgumentHint, Help: c.Description,
			Prompt: func(args string) string { return strings.TrimSpace("/" + name + " " + args) }})
	}
	return out
}

// noticeWriter shows what the app would print on stderr as notices once
// the UI is up (before, stderr is still the terminal's).
type noticeWriter struct {
	sink   *tui.Sink
	stderr io.Writer
	ui     atomic.Bool
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	if !w.ui.Load() {
		return w.stderr.Write(p)
	}
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "tandem:")); l != "" {
			w.sink.Emit(event.Event{Type: event.Status, Message: l})
		}
	}
	return len(p), nil
}
