package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/turn"
)

// equipped is what Equip built for one live session.
type equipped struct {
	cfg      *config.Config
	settings *Settings
	engine   *permission.Engine
	broker   *permission.Broker
	hooks    *hooks.Runner
	// hookFire fires the hooks the session, the runtimes, compaction and
	// sub-agents own.
	hookFire hookAdapter
	mcp      *mcp.Manager
	// mcpRunnable are the approved servers, passed to the claude-code runtime.
	mcpRunnable mcp.Servers
	extras      []func()
	tracker     *checkpoint.Tracker // nil: checkpoints off
	ext         *extensions
	checker     *skillChecker
}

// wiring implements session.Wiring for an App.
type wiring struct {
	app  *App
	mu   sync.Mutex
	live map[*session.Live]*equipped
}

func (w *wiring) get(l *session.Live) *equipped {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live[l]
}

// Equip loads the session folder's configuration and builds its tools,
// permission engine and hooks.
func (w *wiring) Equip(ctx context.Context, l *session.Live) (func(), error) {
	rec := l.Snapshot()
	s, _ := l.Settings.(*Settings)
	if s == nil { // opened without the Manager's resolver (tests)
		var err error
		if s, err = w.app.ResolveSettings(ctx, SettingsRequest{Cwd: rec.Cwd, Model: rec.Model, Runtime: rec.Runtime, Mode: rec.Mode}); err != nil {
			return nil, err
		}
	}
	cfg, perm, claude, home := s.Config, s.perm, s.claude, s.home
	eq := &equipped{cfg: cfg, settings: s}
	hookCfg := hooks.Merge(s.hooks, l.RequestHooks())
	eq.hooks = hooks.NewRunner(hookCfg, rec.Cwd, w.secretPolicy(cfg).ScrubEnv(os.Environ()))
	mode := s.Mode
	userRules, err := perm.user.ToRules(perm.userFile, home)
	if err != nil {
		return nil, err
	}
	projectRules, err := perm.project.ToRules(perm.projectFile, rec.Cwd)
	if err != nil {
		return nil, err
	}
	grants := newGrantStore(w.app.Store, rec.Cwd)
	userRules = append(append(userRules, claude.UserRules...), grants.load(context.WithoutCancel(ctx), string(permission.ScopeUser))...)
	projectRules = append(append(projectRules, claude.ProjectRules...), grants.load(context.WithoutCancel(ctx), rec.Cwd)...)

	sk, ag, skSet, err := w.app.loadExtensions(cfg, rec.Cwd)
	if err != nil {
		return nil, err
	}

	asker := w.app.opts.Asker
	var locals []permission.Asker
	if asker != nil {
		locals = append(locals, asker)
	}
	eq.broker = permission.NewBroker(l.Events.Emit, locals...)
	var engineAsker permission.Asker = eq.broker
	if asker == nil && !w.app.opts.ServerAsks {
		engineAsker = nil // nobody can answer: asks become explained denials
	}
	eq.engine = permission.NewEngine(permission.EngineOptions{
		Mode: mode, Roots: l.Roots, WorkDir: rec.Cwd, HomeDir: home,
		UserRules: userRules, ProjectRules: projectRules, FlagRules: w.app.FlagRules,
		Asker: engineAsker, Emit: l.Events.Emit, GrantStore: grants, Hooks: eq.hooks,
		ProtectedPaths: hookCfg.ScriptPaths(rec.Cwd), ReadRoots: sk.Dirs(),
	})
	// Before the extensions: sub-agents' runtimes fire hooks through it.
	eq.hookFire = newHookAdapter(eq.hooks, func() string { return string(eq.engine.Mode()) }, l.Events.Emit, w.app.opts.Getenv)
	eq.checker = &skillChecker{Engine: eq.engine, catalog: sk, state: l.Env.State}
	l.Checker = eq.checker
	l.ModeSetter = eq.engine
	ts, err := w.equipCheckpoints(cfg, l, eq, tools.Default(w.toolOptions(cfg, l)))
	if err != nil {
		return nil, err
	}
	l.Tools.Add(ts...)
	if err := w.equipExtensions(l, eq, sk, ag, skSet); err != nil {
		return nil, err
	}
	if err := w.equipMCP(ctx, l, eq); err != nil {
		return nil, err
	}

	w.mu.Lock()
	if w.live == nil {
		w.live = map[*session.Live]*equipped{}
	}
	w.live[l] = eq
	w.mu.Unlock()
	w.app.registerBroker(rec.ID, eq.broker)
	source := hooks.SourceStartup
	if rec.LastSeq > 0 {
		source = hooks.SourceResume
	}
	if err := eq.hookFire.SessionStart(ctx, rec.ID, rec.Cwd, source, rec.Model); err != nil {
		l.Events.Emit(event.Event{Type: event.Error, Error: "SessionStart hook: " + err.Error()})
	}
	if eq.hooks.Has(hooks.Notification) {
		l.OnIdle = func() {
			if err := eq.hookFire.Notification(context.Background(), rec.ID, rec.Cwd, hooks.NotifyIdlePrompt,
				"Waiting for input", "tandem is waiting for your input"); err != nil {
				l.Events.Emit(event.Event{Type: event.Error, Error: "Notification hook: " + err.Error()})
			}
		}
	}
	return func() {
		if err := eq.hookFire.SessionEnd(context.Background(), rec.ID, rec.Cwd, "other"); err != nil {
			l.Events.Emit(event.Event{Type: event.Error, Error: "SessionEnd hook: " + err.Error()})
		}
		w.app.unregisterBroker(rec.ID)
		for i := len(eq.extras) - 1; i >= 0; i-- {
			eq.extras[i]()
		}
		w.mu.Lock()
		delete(w.live, l)
		w.mu.Unlock()
	}, nil
}

// Runtime builds the runtime a turn runs under.
func (w *wiring) Runtime(name string, l *session.Live) (turn.Runtime, error) {
	eq := w.get(l)
	if eq == nil {
		return nil, fmt.Errorf("session %s is not equipped", l.Snapshot().ID)
	}
	var rt turn.Runtime
	var err error
	switch name {
	case "", "native":
		eq.checker.cli.Store(false)
		rt, err = w.native(eq)
	case "claude-code", "auto":
		rt, err = w.claudeCode(name, l, eq)
		if err == nil {
			eq.checker.cli.Store(rt.Name() == claudecode.RuntimeName)
		}
	default:
		return nil, fmt.Errorf("unknown runtime %q: use native, claude-code or auto", name)
	}
	if err != nil {
		return nil, err
	}
	return withCheckpoint(rt, eq), nil
}

func (w *wiring) native(eq *equipped) (turn.Runtime, error) {
	opts, err := w.nativeOptions(eq)
	if err != nil {
		return nil, err
	}
	return agent.New(opts)
}

func (w *wiring) nativeOptions(eq *equipped) (agent.Options, error) {
	pb := prompt.Builder{ConfigDir: w.app.Paths.ConfigDir, Home: w.app.opts.Getenv("HOME"), Warn: w.app.opts.Stderr}
	cc, err := compact.Parse(eq.cfg.Compaction, eq.cfg.SectionSource("compaction"))
	if err != nil {
		return agent.Options{}, err
	}
	opts := agent.Options{
		Models:     w.app.models.resolver(eq.cfg),
		System:     pb.Build,
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
		if err := json.Unmarshal(layer.Permissions, &pc); err != nil {
			return out, &config.Error{File: layer.File, Field: "permissions", Msg: err.Error()}
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
