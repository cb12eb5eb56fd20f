package app

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/strictjson"
	"github.com/tandem-agent/tandem/internal/telemetry"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/tools/shell"
	"github.com/tandem-agent/tandem/internal/trust"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Equipment is what Equip built for one live session: its permission engine
// and broker, hooks, MCP servers, checkpoint recorder, skills, commands and
// sub-agent runner. The live session owns it and closes it; what it
// offers front ends it names in Capabilities (MCPStatus, MCPAction,
// WaitMCP, Extensions, SandboxAllow, the broker's Reply and Pending, the
// engine), which they reach through the session.Live's methods.
type Equipment struct {
	w        *wiring
	l        *session.Live
	cfg      *config.Config
	settings *Settings
	engine   *permission.Engine
	broker   *permission.Broker
	// asker is the broker when someone can answer questions, else nil
	// (MCP elicitations are then cancelled).
	asker permission.Asker
	hooks *hooks.Runner
	// hookFire fires the hooks the session, the runtimes, compaction and
	// sub-agents own.
	hookFire hookAdapter
	mcp      *mcp.Manager
	// mcpStarted: tandem's own MCP connections run (native turns); under
	// the claude-code runtime the CLI runs the servers (mcpcli.go).
	mcpStarted atomic.Bool
	// cli is the MCP state the claude-code runtime's turns are built from.
	cli     cliMCP
	extras  []func()
	tracker *checkpoint.Tracker // nil: checkpoints off
	sandbox *sandbox.Sandbox    // nil: the sandbox is off
	egress  *netproxy.Proxy     // the sandbox's proxy (nil: off)
	ext     *extensions
	tel     *telemetry.Session // nil: telemetry off
	checker *skillChecker
	grants  skillGrants
	// mu guards extras, which the claude-code runtime's first turn may add to,
	// and cli's toggles and runtime.
	mu sync.Mutex
}

// NoticeUntrusted is the "notice" of the status event that says what an
// untrusted folder's session runs without (trust.Notice); its meta also
// holds "dir" and "left_out" (the findings).
const NoticeUntrusted = trust.NoticeKind

// wiring implements session.Wiring for an App.
type wiring struct {
	app *App
}

// Equip implements session.Wiring for a session opened without the
// resolver's settings (the Manager uses what Resolve returns): it resolves
// them, then equips.
func (w *wiring) Equip(ctx context.Context, l *session.Live) (session.Equipment, error) {
	rec := l.Snapshot()
	s, err := w.app.ResolveSettings(ctx, SettingsRequest{Cwd: rec.Cwd, Model: rec.Model, Runtime: rec.Runtime, Mode: rec.Mode})
	if err != nil {
		return nil, err
	}
	return w.equip(ctx, l, s)
}

// equip builds the session's tools, permission engine, hooks, MCP
// servers and checkpoints from the settings Resolve decided for it.
func (w *wiring) equip(ctx context.Context, l *session.Live, s *Settings) (session.Equipment, error) {
	rec := l.Snapshot()
	// Commands an earlier tandem left running for this session when it
	// died with its watchdog (kill -9 of both, the OOM killer).
	shell.ReapOrphans(l.Env().DataDir, rec.ID)
	cfg := s.Config
	eq := &Equipment{w: w, l: l, cfg: cfg, settings: s}
	eq.tel = w.sessionTelemetry(cfg, l)
	hookCfg := hooks.Merge(s.hooks, l.RequestHooks())
	eq.hooks = hooks.NewRunner(hookCfg, rec.Cwd, w.secretPolicy(cfg).ScrubEnv(os.Environ()))
	engineOpts, grants, err := w.app.engineOptions(ctx, s, rec.Cwd, hookCfg, l.RequestFlagRules())
	if err != nil {
		return nil, err
	}

	// Loaded once by ResolveSettings, which took the trust findings from
	// the same load.
	sk, ag, skSet := s.ext.skills, s.ext.agents, s.ext.set

	// Who answers is the opener's choice, per session.
	asker, byReply := l.RequestAsker()
	var locals []permission.Asker
	if asker != nil {
		locals = append(locals, asker)
	}
	eq.broker = permission.NewBroker(l.Events().Emit, locals...)
	var engineAsker permission.Asker = eq.broker
	if asker == nil && !byReply {
		engineAsker = nil // nobody can answer: asks become explained denials
	}
	eq.asker = engineAsker
	if s.Sandbox.On() {
		sb, egress, cleanup, err := w.app.SandboxFor(s.Sandbox, l.Roots(), l.Events().Emit, false)
		if err != nil {
			return nil, err
		}
		// The session's sandbox process starts with the session, not with
		// its first command (and a sandbox that cannot be set up here
		// stops the session now).
		if err := sb.Open(); err != nil {
			cleanup()
			return nil, fmt.Errorf("the sandbox is on (config or --sandbox) but cannot run here: %w", err)
		}
		eq.addExtra(cleanup)
		eq.sandbox, eq.egress = sb, egress
		l.Env().Sandbox = sb
		eq.hooks.SetConfine(sb.Confine)
		eq.hooks.SetDenials(func(output, dir string) {
			for _, ev := range sb.DenialEvents(output, dir) {
				ev.Meta["source"] = "hook"
				l.Events().Emit(ev)
			}
		})
		engineOpts.Sandboxed = true
	}
	engineOpts.Roots, engineOpts.ReadRoots = l.Roots(), sk.Dirs()
	engineOpts.Tools = sessionTools(l)
	engineOpts.Asker, engineOpts.Emit, engineOpts.GrantStore, engineOpts.Hooks = engineAsker, l.Events().Emit, grants, eq.hooks
	// An approved plan's mode is stored with the session, as a mode the
	// user picks is (Live.SetMode sets the engine's too).
	engineOpts.ChangeMode = func(ctx context.Context, m permission.Mode) error { return l.SetMode(ctx, string(m)) }
	eq.engine = permission.NewEngine(engineOpts)
	// Before the extensions: sub-agents' runtimes fire hooks through it.
	eq.hookFire = newHookAdapter(eq.hooks, func() string { return string(eq.engine.Mode()) }, l.Events().Emit, w.app.opts.Getenv)
	eq.hookFire.title = l.SetTitle
	eq.grants = skillGrants{engine: eq.engine, trusted: s.Trusted}
	eq.checker = &skillChecker{Engine: eq.engine, grants: eq.grants, catalog: sk, state: l.Env().State}
	ts, err := w.equipCheckpoints(cfg, l, eq, tools.Default(w.toolOptions(cfg, func() string { return l.Snapshot().Model }, eq.sandbox != nil)))
	if err != nil {
		return nil, err
	}
	if ts, err = w.equipLSP(s, l, eq, ts); err != nil {
		return nil, err
	}
	l.Tools().Add(ts...)
	reportPlugins(w.app, l, s.plugins)
	if err := w.equipExtensions(l, eq, sk, ag, skSet); err != nil {
		return nil, err
	}
	if err := w.equipMCP(ctx, l, eq); err != nil {
		return nil, err
	}
	if err := w.equipHookJudge(ctx, eq, s, hookCfg); err != nil {
		return nil, err
	}

	sweepWorktrees(ctx, l, rec.Cwd)
	if len(s.LeftOut) > 0 {
		// Said once, as the session starts: every front end shows it (a
		// line on stderr, a banner, a dialog, a notice).
		l.Events().Emit(event.Event{Type: event.Status, Message: trust.Notice(s.Cwd, s.LeftOut),
			Meta: map[string]any{"notice": NoticeUntrusted, "dir": s.Cwd, "left_out": s.LeftOut}})
	}
	source := hooks.SourceStartup
	if rec.LastSeq > 0 {
		source = hooks.SourceResume
	}
	if err := eq.hookFire.SessionStart(ctx, rec.ID, rec.Cwd, source, rec.Model); err != nil {
		l.Events().Emit(event.Event{Type: event.Error, Error: "SessionStart hook: " + err.Error()})
	}
	return eq, nil
}

// mcpInstructions are the instructions of the session's connected MCP
// servers (a server the policy does not run never connects), for the
// system prompt. The manager is made after the runtimes' options, so it
// is looked up at each request.
func (eq *Equipment) mcpInstructions() map[string]string {
	if eq.mcp == nil {
		return nil
	}
	return eq.mcp.Instructions()
}

// Checker implements session.Equipment: the permission engine, with the
// skills' grants under the claude-code runtime.
func (eq *Equipment) Checker() permission.Checker { return eq.checker }

// Capabilities implements session.Equipment: everything the application's
// equipment offers, which front ends reach through the session.Live.
func (eq *Equipment) Capabilities() session.Capabilities {
	return session.Capabilities{Permissions: eq.broker, Engine: eq.engine, MCP: eq, Extensions: eq,
		Sandbox: eq, ModelSwitch: eq, Checkpoints: eq.w.app.Checkpoints, Shell: eq, StatusLine: eq, OutputStyles: eq}
}

// Idle implements session.Equipment: the Notification hook's idle_prompt.
func (eq *Equipment) Idle() {
	if !eq.hooks.Has(hooks.Notification) {
		return
	}
	rec := eq.l.Snapshot()
	if err := eq.hookFire.Notification(context.Background(), rec.ID, rec.Cwd, hooks.NotifyIdlePrompt,
		"Waiting for input", "tandem is waiting for your input"); err != nil {
		eq.l.Events().Emit(event.Event{Type: event.Error, Error: "Notification hook: " + err.Error()})
	}
}

// PreModelSwitch implements session.ModelSwitchHooks.
func (eq *Equipment) PreModelSwitch(ctx context.Context, from, to string) error {
	rec := eq.l.Snapshot()
	return eq.hookFire.PreModelSwitch(ctx, rec.ID, rec.Cwd, from, to)
}

// PostModelSwitch implements session.ModelSwitchHooks.
func (eq *Equipment) PostModelSwitch(ctx context.Context, from, to string) {
	rec := eq.l.Snapshot()
	if err := eq.hookFire.PostModelSwitch(ctx, rec.ID, rec.Cwd, from, to); err != nil {
		eq.l.Events().Emit(event.Event{Type: event.Error, Error: "PostModelSwitch hook: " + err.Error()})
	}
}

// Close implements session.Equipment: the SessionEnd hook, then MCP
// servers, the checkpoint recorder and the skills folder made for the
// claude-code runtime, last started first stopped.
func (eq *Equipment) Close() {
	rec := eq.l.Snapshot()
	if err := eq.hookFire.SessionEnd(context.Background(), rec.ID, rec.Cwd, eq.l.EndReason()); err != nil {
		eq.l.Events().Emit(event.Event{Type: event.Error, Error: "SessionEnd hook: " + err.Error()})
	}
	eq.mu.Lock()
	extras := eq.extras
	eq.extras = nil
	eq.mu.Unlock()
	for i := len(extras) - 1; i >= 0; i-- {
		extras[i]()
	}
}

// addExtra adds something Close stops.
func (eq *Equipment) addExtra(f func()) {
	eq.mu.Lock()
	eq.extras = append(eq.extras, f)
	eq.mu.Unlock()
}

// Runtime implements session.Equipment.
func (eq *Equipment) Runtime(name runtimes.Name) (turn.Runtime, error) {
	w := eq.w
	var rt turn.Runtime
	var err error
	switch name {
	case "", runtimes.Native:
		eq.checker.cli.Store(false)
		rt, err = w.native(eq)
	case runtimes.ClaudeCode, runtimes.Auto:
		rt, err = w.claudeCode(name, eq.l, eq)
		if err == nil {
			eq.checker.cli.Store(rt.Name() == string(runtimes.ClaudeCode))
		}
	default:
		_, err = runtimes.Parse(string(name))
	}
	if err != nil {
		return nil, err
	}
	if rt.Name() != string(runtimes.ClaudeCode) {
		// A native turn uses tandem's own MCP connections (mcpcli.go).
		eq.startMCP(context.Background())
	}
	return eq.tel.Runtime(withCheckpoint(rt, eq)), nil
}

func (w *wiring) native(eq *Equipment) (turn.Runtime, error) {
	opts, err := w.nativeOptions(eq)
	if err != nil {
		return nil, err
	}
	return agent.New(opts)
}

func (w *wiring) nativeOptions(eq *Equipment) (agent.Options, error) {
	home := w.app.opts.Getenv("HOME")
	if !w.app.userClaudeSettings() {
		home = "" // no ~/.claude/CLAUDE.md: the host left out the user's files
	}
	pb := prompt.Builder{ConfigDir: w.app.Paths.ConfigDir, Home: home, Warn: w.app.opts.Stderr, NoProject: !w.app.projectFiles(),
		MCP: eq.mcpInstructions, Style: eq.settings.style}
	cc, err := compact.Parse(eq.cfg.Compaction, eq.cfg.SectionSource("compaction"))
	if err != nil {
		return agent.Options{}, err
	}
	opts := agent.Options{
		Models:     w.app.models.resolver(eq.cfg),
		Prompt:     pb,
		ShellCwd:   shellCwd,
		Compaction: cc,
	}
	if eq.hooks != nil {
		opts.Hooks = eq.hookFire
		opts.CompactHooks = eq.hookFire
	}
	return opts, nil
}

// permLayers are the "permissions" sections of the user and project files.
type permLayers struct {
	user, project         permission.Config
	userFile, projectFile string
}

func permissionConfig(cfg *config.Config) (permLayers, error) {
	var out permLayers
	for _, layer := range cfg.Layers {
		if len(layer.Permissions) == 0 {
			continue
		}
		var pc permission.Config
		if err := strictjson.Unmarshal(layer.Permissions, &pc); err != nil {
			return out, sectionError(layer.File, "permissions", err)
		}
		if err := pc.Validate(); err != nil {
			return out, &config.Error{File: layer.File, Msg: err.Error()}
		}
		if layer.Scope == "user" {
			out.user, out.userFile = pc, layer.File
		} else {
			out.project, out.projectFile = pc, layer.File
		}
	}
	return out, nil
}
