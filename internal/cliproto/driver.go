package cliproto

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// Options are what Main needs from the process.
type Options struct {
	Args           []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Version is tandem's own version ("tandem v1.2.3").
	Version string
}

// driver is one process speaking the protocol: one session, turns one at
// a time, control requests in both directions.
type driver struct {
	o   Options
	f   Flags
	app *app.App
	w   *writer
	ctl *control
	pt  *partials

	mu          sync.Mutex
	live        *session.Live
	tree        *worktree.Tree // --worktree's, made with the session
	hooks       hooks.Config   // the host's hook callbacks (initialize)
	sdkServers  []string       // the host's in-process MCP servers (initialize)
	systemInit  *string        // initialize's systemPrompt, over --system-prompt
	appendInit  string
	mode        permission.Mode
	model       string // the model asked for (flag, set_model)
	thinking    *int64 // set_max_thinking_tokens; nil: the configured budget
	cancelTurn  context.CancelFunc
	interrupted bool
	turn        *turnStats
	turnUUID    string          // the running turn's user message uuid
	checkpoints map[string]int  // user message uuid -> checkpoint number
	agentsFlag  []*subagent.Def // --agents
	agentsInit  []*subagent.Def // initialize's agents
	// asker and flagRules are what the flags call for, given to the
	// session when it opens.
	asker     permission.Asker
	flagRules []permission.Rule
}

// Main runs tandem as the Claude Code CLI would run with these arguments
// and returns the exit status.
func Main(ctx context.Context, o Options) int {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	f, warns, err := Parse(o.Args)
	for _, w := range warns {
		fmt.Fprintln(o.Stderr, "tandem: warning:", w)
	}
	d := &driver{o: o, f: f, w: &writer{out: o.Stdout}, checkpoints: map[string]int{}}
	if err != nil {
		return d.fatal(err)
	}
	if f.Version {
		fmt.Fprintf(o.Stdout, "%s (%s; speaks the Claude Code CLI protocol)\n", ProtocolVersion, o.Version)
		return 0
	}
	d.ctl = newControl(d.w)
	d.pt = &partials{w: d.w, sessionID: d.sessionID, model: d.modelID}
	d.model = normalizeModel(f.Model)
	d.mode = permission.AskEdits
	if f.PermissionMode != "" {
		d.mode, _ = ParseMode(f.PermissionMode)
	}
	if f.SkipPermissions {
		d.mode = permission.Trust
	}
	if f.SystemPrompt != nil && *f.SystemPrompt == "" {
		// The Python SDK passes --system-prompt "" unless the caller sets
		// one; an empty prompt would leave the model without tandem's
		// instructions for its tools, so it means "tandem's default".
		f.SystemPrompt = nil
	}
	if err := d.open(); err != nil {
		return d.fatal(err)
	}
	defer d.close()
	if f.InputFormat == "stream-json" {
		return d.serveStream(ctx)
	}
	prompt, err := d.textPrompt()
	if err != nil {
		return d.fatal(err)
	}
	return d.runTurn(ctx, userInput{text: prompt})
}

// open opens tandem and decides the asker and rules the flags call for.
func (d *driver) open() error {
	var asker permission.Asker
	switch d.f.PermissionPromptTool {
	case "":
	case "stdio":
		if d.f.InputFormat != "stream-json" {
			return fmt.Errorf("--permission-prompt-tool stdio needs --input-format stream-json (the answers come on stdin)")
		}
		asker = permission.AskerFunc(d.canUseTool)
	default:
		d.warn("--permission-prompt-tool %s: an MCP tool as the permission prompt is not supported; calls that need approval are denied", d.f.PermissionPromptTool)
	}
	getenv := d.o.Getenv
	if n := d.f.MaxThinkingTokens; n != nil {
		getenv = func(k string) string {
			if k == "MAX_THINKING_TOKENS" {
				return strconv.Itoa(*n)
			}
			return d.o.Getenv(k)
		}
	}
	a, err := app.Open(app.Options{Home: d.f.Home, Getenv: getenv, Version: d.o.Version, Stderr: d.o.Stderr,
		SettingSources: settingSources(d.f.SettingSources), HostAgents: d.hostAgents, PluginDirs: d.f.PluginDirs})
	if err != nil {
		return err
	}
	d.app = a
	d.asker = asker
	if d.flagRules, err = d.parseFlagRules(); err != nil {
		a.Close()
		return err
	}
	if err := d.flagAgents(); err != nil {
		a.Close()
		return err
	}
	return nil
}

// settingSources reads --setting-sources (the Agent SDK sends it, empty
// unless its settingSources names some): nil when absent, as Claude Code
// then reads every source. docs/claude-code-cli.md.
func settingSources(v *string) []string {
	if v == nil {
		return nil
	}
	out := []string{}
	for _, s := range strings.Split(*v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (d *driver) close() {
	d.mu.Lock()
	live := d.live
	d.mu.Unlock()
	if live != nil {
		live.Close()
	}
	d.leaveWorktree()
	d.app.Close()
}

func (d *driver) warn(format string, args ...any) {
	fmt.Fprintf(d.o.Stderr, "tandem: warning: "+format+"\n", args...)
}

// fatal reports an error that prevents any turn: on stderr, and as a
// result line where the output is JSON, so an SDK always gets one.
func (d *driver) fatal(err error) int {
	fmt.Fprintln(d.o.Stderr, "tandem:", err)
	if d.f.OutputFormat != "text" {
		d.w.line(errorResult(d.sessionID(), err.Error()))
	}
	return 1
}

func (d *driver) interrupt() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancelTurn != nil {
		d.interrupted = true
		d.cancelTurn()
	}
}

func (d *driver) sessionID() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.live == nil {
		return ""
	}
	return d.live.ID()
}

// modelID is the session's model without its provider, as Claude Code
// names models.
func (d *driver) modelID() string {
	d.mu.Lock()
	spec := d.model
	if d.live != nil {
		spec = d.live.Info().Model
	}
	d.mu.Unlock()
	return bareModel(spec)
}

func (d *driver) setMode(ctx context.Context, m permission.Mode) {
	d.mu.Lock()
	d.mode = m
	live := d.live
	d.mu.Unlock()
	if live != nil {
		if err := live.SetMode(ctx, string(m)); err != nil {
			d.warn("set permission mode: %v", err)
		}
	}
}
