package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/structured"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

type runFlags struct {
	prompt, cwd, model, outputFormat, resume, mode, appendSystem, systemPrompt, runtime string
	jsonSchema, effort, worktree                                                        string
	cont, verbose, trustProject, requireTrust                                           bool
	sandbox                                                                             sandboxFlags
	maxTurns                                                                            int
	pluginDirs                                                                          []string
	maxBudget                                                                           float64
	allowed, disallowed, addDirs, fallbackModels, images                                []string
	mcpWait                                                                             time.Duration
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [-p PROMPT]",
		Short: "Run one agent turn headless (like claude -p)",
		Long: "Run one agent turn in the current folder (or --cwd) and print the answer. The prompt comes from -p, " +
			"from the arguments, or from standard input; piped input is added to a -p prompt (when nothing arrives on standard input " +
			"within 3 s, the run goes on with the -p prompt alone).",
		Example: "  tandem run -p 'fix the failing test'\n  git diff | tandem run -p 'review this diff' --output-format json\n  tandem run --continue -p 'now add a test'\n  tandem run --image screenshot.png -p 'why is this button misaligned?'",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTurn(cmd, g, f, args)
		},
	}
	// A bad flag stops cobra before RunE: a JSON consumer still gets its
	// result line.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return reportEarly(c, outputFormatOf(f, os.Args[1:]), fmt.Errorf("%w (see `tandem run --help`)", err))
	})
	addRunFlags(cmd.Flags(), f)
	// Only `run`: `tandem -p` is the Claude Code CLI's protocol, which has
	// no such flag (its images come as stream-json image blocks).
	cmd.Flags().StringArrayVar(&f.images, "image", nil, "attach an image file (PNG, JPEG, GIF, WebP) to the prompt; repeat for more")
	return cmd
}

// addRunFlags registers the flags of a run; `tandem` itself (the terminal
// UI, or a headless run with -p) takes the same ones.
func addRunFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVarP(&f.prompt, "print", "p", "", "the prompt")
	fl.StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "load the Claude Code plugin in this folder for this run only (repeatable)")
	fl.StringVar(&f.cwd, "cwd", "", "working folder (default: the current folder)")
	fl.StringVarP(&f.worktree, "worktree", "w", "", "start the session in a new git worktree NAME of the folder's repository (.claude/worktrees/NAME, branch worktree-NAME); removed on exit when nothing changed, kept for review otherwise")
	fl.StringVar(&f.model, "model", "", "model as provider/model (e.g. anthropic/claude-sonnet-5-5) or a catalog id")
	fl.StringSliceVar(&f.fallbackModels, "fallback-model", nil, "models to try, in order, when the model stays overloaded or failing after retries (repeat or comma-separate)")
	fl.StringVar(&f.effort, "effort", "", "effort for this run where the model takes it: low, medium, high, xhigh or max (default: the config's \"effort\")")
	fl.StringVar(&f.jsonSchema, "json-schema", "", "make the final answer a JSON value conforming to this JSON Schema (inline JSON or a file); the result carries it in structured_output")
	fl.StringVar(&f.outputFormat, "output-format", "text", "text, json or stream-json")
	fl.StringVarP(&f.resume, "resume", "r", "", "resume the session with this id")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the latest session in this folder")
	fl.StringVar(&f.mode, "permission-mode", "", permission.ModeList()+" (or Claude Code's default, plan, bypassPermissions)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "stop after this many model steps (0: no limit)")
	fl.Float64Var(&f.maxBudget, "max-budget-usd", 0, "stop before the next model call once a turn has spent this many US dollars, sub-agents included (0: no limit)")
	fl.StringVar(&f.appendSystem, "append-system-prompt", "", "text appended to the system prompt")
	fl.StringVar(&f.systemPrompt, "system-prompt", "", "replace the system prompt")
	fl.StringSliceVar(&f.allowed, "allowedTools", nil, "tools or rules to allow, e.g. \"Bash(git log:*)\" Read")
	fl.StringSliceVar(&f.disallowed, "disallowedTools", nil, "tools or rules to deny, e.g. Bash \"Edit(/docs/**)\"")
	fl.StringSliceVar(&f.addDirs, "add-dir", nil, "more folders the agent may work in")
	fl.StringVar(&f.runtime, "runtime", "", runtimes.List())
	fl.BoolVar(&f.verbose, "verbose", false, "print every event to stderr (text output)")
	fl.BoolVar(&f.trustProject, "trust-project", false, "trust the folder's project files for this run (as `tandem trust` does for good)")
	fl.BoolVar(&f.requireTrust, "require-trust", false, "refuse to start in an untrusted folder whose project files set what needs trust (default: run without those settings and say which)")
	f.sandbox.add(fl)
	fl.DurationVar(&f.mcpWait, "mcp-wait", app.DefaultMCPWait, "how long to wait for MCP servers to connect before the first model call")
}

func (f *runFlags) validate() error {
	if _, err := f.sandbox.mode(); err != nil {
		return err
	}
	switch f.outputFormat {
	case "text", "json", "stream-json":
	default:
		return fmt.Errorf("--output-format %q: use text, json or stream-json", f.outputFormat)
	}
	if f.maxTurns < 0 {
		return fmt.Errorf("--max-turns %d: use 0 (no limit) or more", f.maxTurns)
	}
	if f.maxBudget < 0 || math.IsNaN(f.maxBudget) || math.IsInf(f.maxBudget, 0) {
		return fmt.Errorf("--max-budget-usd %v: give an amount in US dollars, e.g. 2.50 (0: no limit)", f.maxBudget)
	}
	if err := config.CheckEffort(f.effort); err != nil {
		return fmt.Errorf("--effort: %w", err)
	}
	for _, m := range f.fallbackModels {
		if err := config.CheckModelSpec(m); err != nil {
			return fmt.Errorf("--fallback-model: %w", err)
		}
	}
	if _, err := f.schema(); err != nil {
		return err
	}
	if f.resume != "" && f.cont {
		return fmt.Errorf("--resume and --continue both pick a session: use one")
	}
	if err := f.checkWorktreeFlag(); err != nil {
		return err
	}
	if f.mode != "" {
		if _, err := permission.ParseMode(f.mode); err != nil {
			return fmt.Errorf("--permission-mode: %w", err)
		}
	}
	if f.runtime != "" {
		if _, err := runtimes.Parse(f.runtime); err != nil {
			return fmt.Errorf("--runtime: %w", err)
		}
	}
	for _, d := range f.addDirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("--add-dir %s: not a folder", d)
		}
	}
	return nil
}

// readPrompt takes -p, else the arguments, else standard input; piped
// input is appended to a -p prompt (git diff | tandem run -p "review").
func readPrompt(f *runFlags, args []string, stdin io.Reader, stdinIsTTY bool, warn io.Writer) (string, error) {
	p := f.prompt
	if p == "" && len(args) > 0 {
		p = strings.Join(args, " ")
	}
	if !stdinIsTTY {
		wait := time.Duration(0) // no prompt yet: it must come from stdin
		if strings.TrimSpace(p) != "" {
			wait = stdinWait
		}
		data, timedOut, err := readStdin(stdin, wait)
		if err != nil {
			return "", err
		}
		if timedOut {
			fmt.Fprintf(warn, "tandem: nothing arrived on standard input within %v; going on with the prompt alone\n", stdinWait)
		}
		if s := strings.TrimSpace(data); s != "" {
			if p == "" {
				p = s
			} else {
				p = p + "\n\n" + s
			}
		}
	}
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("no prompt: pass -p \"...\" or pipe it on standard input")
	}
	return p, nil
}

// runTurn runs the turn; whatever stops it early is reported through
// reportEarly, so json and stream-json always end with a result line.
func runTurn(cmd *cobra.Command, g *globalFlags, f *runFlags, args []string) error {
	err := runTurnBody(cmd, g, f, args)
	var ee exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return reportEarly(cmd, f.outputFormat, err)
}

func runTurnBody(cmd *cobra.Command, g *globalFlags, f *runFlags, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	stdinTTY := isatty.IsTerminal(os.Stdin.Fd())
	prompt, err := readPrompt(f, args, os.Stdin, stdinTTY, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	images, err := readImages(f.images)
	if err != nil {
		return err
	}
	var asker permission.Asker
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil && isatty.IsTerminal(os.Stderr.Fd()) {
		defer tty.Close()
		asker = newTerminalAsker(tty, tty)
	}
	sbMode, err := f.sandbox.mode()
	if err != nil {
		return err
	}
	a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr(), TrustProject: f.trustProject, RequireTrust: f.requireTrust, Sandbox: sbMode, PluginDirs: f.pluginDirs})
	if err != nil {
		return err
	}
	defer a.Close()
	sayStaleCatalog(cmd.ErrOrStderr(), a)
	rules, err := flagRules(f)
	if err != nil {
		return err
	}
	schema, _ := f.schema() // checked by validate
	ctx, stop := interruptContext(cmd.Context())
	defer stop()

	out := newPrinter(f.outputFormat, cmd.OutOrStdout(), cmd.ErrOrStderr(), f.verbose)
	leave, err := enterWorktree(ctx, f, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer leave() // after live.Close (deferred later, so run first)
	// Open resolves the folder's settings (config files, trust, model)
	// before a new session is stored, so a failed start leaves nothing for
	// --continue to pick up.
	live, err := a.Manager.Open(ctx, session.OpenRequest{ID: f.resume, Continue: f.cont, Cwd: f.cwd, AddDirs: f.addDirs,
		Model: f.model, Runtime: f.runtime, Mode: f.mode, ModeFromRequest: true, Sinks: []event.Sink{out},
		Asker: asker, FlagRules: rules})
	if err != nil {
		return err
	}
	defer live.Close()
	live.WaitMCP(ctx, f.mcpWait)
	res, err := live.Run(ctx, prompt, session.TurnOptions{MaxTurns: f.maxTurns, MaxBudgetUSD: f.maxBudget, AppendSystemPrompt: f.appendSystem,
		SystemPrompt: f.systemPrompt, DisallowedTools: f.disallowed,
		FallbackModels: f.fallbackModels, JSONSchema: schema, Effort: f.effort, Images: images})
	if err != nil {
		return reportEarly(cmd, f.outputFormat, err, live.ID())
	}
	out.finish(res)
	if res.IsError {
		return exitError{code: 1}
	}
	return nil
}

func flagRules(f *runFlags) ([]permission.Rule, error) {
	allow, err := permission.ParseToolFlags(f.allowed, permission.ActionAllow)
	if err != nil {
		return nil, err
	}
	deny, err := permission.ParseToolFlags(f.disallowed, permission.ActionDeny)
	if err != nil {
		return nil, err
	}
	return append(allow, deny...), nil
}

// --allowedTools is not a tool filter for the turn: as in Claude Code it
// only approves (flagRules), so "--allowedTools 'Bash(make test)'", which
// a denial message suggests, keeps every other tool. --disallowedTools is
// both deny rules and the turn's permission.ToolFilter.

// reportEarly reports an error that prevented a turn; in json and
// stream-json it is also a final result event (with the session id when
// one was opened), so consumers always get one.
func reportEarly(cmd *cobra.Command, format string, err error, sessionID ...string) error {
	if format == "json" || format == "stream-json" {
		res := event.Event{Type: event.Result, Subtype: event.SubtypeError, IsError: true, Error: err.Error(), Time: time.Now().UTC()}
		if len(sessionID) > 0 {
			res.SessionID = sessionID[0]
		}
		writeJSONLine(cmd.OutOrStdout(), res)
	}
	fmt.Fprintln(termsafe.Writer(cmd.ErrOrStderr()), "tandem:", err)
	return exitError{code: 1}
}

// outputFormatOf is the --output-format a run asked for, read from the raw
// arguments when flag parsing stopped before reaching it.
func outputFormatOf(f *runFlags, args []string) string {
	format := f.outputFormat
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--output-format="); ok {
			format = v
		} else if a == "--output-format" && i+1 < len(args) {
			format = args[i+1]
		}
	}
	return format
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// schema reads --json-schema: inline JSON, or else the name of a file
// holding it. It is compiled here so a bad schema fails before anything
// is stored.
func (f *runFlags) schema() (json.RawMessage, error) {
	v := strings.TrimSpace(f.jsonSchema)
	if v == "" {
		return nil, nil
	}
	raw := []byte(v)
	if !strings.HasPrefix(v, "{") {
		b, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: give the schema as JSON or the name of a file holding it: %w", err)
		}
		raw = b
	}
	if _, err := structured.Compile(raw); err != nil {
		return nil, fmt.Errorf("--json-schema: %w", err)
	}
	return raw, nil
}
