package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/trust"
	"github.com/tandem-agent/tandem/internal/tui"
	"github.com/tandem-agent/tandem/internal/tui/appbackend"
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
	a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: warn, TrustProject: f.trustProject, RequireTrust: f.requireTrust, Sandbox: sbMode, PluginDirs: f.pluginDirs})
	if err != nil {
		return err
	}
	defer a.Close()
	sayStaleCatalog(warn, a)
	rules, err := flagRules(f)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	be := appbackend.New(a, sink, appbackend.Options{AddDirs: f.addDirs, Runtime: f.runtime, FlagRules: rules, MCPWait: f.mcpWait,
		Turn: session.TurnOptions{MaxTurns: f.maxTurns, MaxBudgetUSD: f.maxBudget, AppendSystemPrompt: f.appendSystem,
			SystemPrompt: f.systemPrompt, DisallowedTools: f.disallowed, Effort: f.effort}})
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
	leave, err := enterWorktree(ctx, f, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer leave() // after the session closes (deferred below, so run first)
	req.Cwd = f.cwd
	err = be.OpenFirst(ctx, req)
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
		be.Close(reason)
	}()
	warn.ui.Store(true)
	err = tui.Run(ctx, tui.Options{Backend: be, Sink: sink, Prompt: prompt,
		HistoryFile: filepath.Join(a.Paths.DataDir, "prompt-history.jsonl"),
		Commands:    appbackend.Commands(a, be.Info().Cwd),
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
