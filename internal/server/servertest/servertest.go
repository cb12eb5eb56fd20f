// Package servertest builds a complete server stack for tests and the
// benchmark: a store in a temporary folder, the real native runtime
// talking to a scripted model server, the built-in tools, and the real
// permission engine asking through one shared Broker (whose events are
// routed to the asking session's emitter).
package servertest

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/tools/agenttools"
	"github.com/tandem-agent/tandem/internal/tools/shell"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Model is the model spec sessions use ("scripted/<id>").
const Model = "scripted/claude-sonnet-4-5"

// Config tunes the stack.
type Config struct {
	Script scripted.Script
	// AskTools are tools that always ask for permission (e.g. "Write"),
	// so tests see permission requests in normal mode.
	AskTools []string
	// NoPermissions uses permission.AllowAll instead of the engine.
	NoPermissions bool
	// Checkpoints records rewind checkpoints around turns and tools, as
	// the application does.
	Checkpoints bool
	// Subagents adds the Agent tool (built-in agents, children stored in
	// the stack's store).
	Subagents bool
	// ModelURL points the sessions at a model server already running
	// (a benchmark runs it in another process, so its CPU and memory are
	// not counted as the server's); Script is then unused and Stack.Model
	// is nil.
	ModelURL string
}

// Stack is the assembled pieces.
type Stack struct {
	Dir     string // data folder
	Store   *store.Store
	Manager *session.Manager
	Broker  *permission.Broker
	Model   *scripted.Server
	Wiring  *Wiring
	// Checkpoints serves the checkpoint endpoints (recording needs
	// Config.Checkpoints).
	Checkpoints *checkpoint.Service
}

// New builds a stack in dir. Close it when done.
func New(dir string, cfg Config) (*Stack, error) {
	st, err := store.Open(filepath.Join(dir, "tandem.db"))
	if err != nil {
		return nil, err
	}
	var ms *scripted.Server
	url := cfg.ModelURL
	if url == "" {
		ms = scripted.New(cfg.Script, scripted.WithoutRecording())
		if url, err = ms.Start(); err != nil {
			st.Close()
			return nil, fmt.Errorf("start scripted model server: %w", err)
		}
	}
	stop := func() {
		if ms != nil {
			ms.Close()
		}
		st.Close()
	}
	prov, err := providers.New(provider.Config{Kind: "anthropic", BaseURL: url, APIKey: "x"})
	if err != nil {
		stop()
		return nil, err
	}
	rt, err := agent.New(agent.Options{Models: agent.ResolverFunc(func(spec string) (agent.Model, error) {
		zero := 0.0
		return agent.Model{Provider: prov, ID: "claude-sonnet-4-5", MaxOutput: 1024,
			Cost: func(u message.Usage) *float64 {
				c := zero + float64(u.InputTokens)*3e-6 + float64(u.OutputTokens)*15e-6
				return &c
			}}, nil
	})})
	if err != nil {
		stop()
		return nil, err
	}
	w := &Wiring{rt: rt, cfg: cfg, lives: map[string]*session.Live{}, trackers: map[string]*checkpoint.Tracker{}, store: st}
	w.Broker = permission.NewBroker(w.route)
	w.ckpt = checkpoint.NewService(st, dir, checkpoint.Options{})
	return &Stack{Dir: dir, Store: st, Manager: session.NewManager(st, w, dir), Broker: w.Broker, Model: ms, Wiring: w,
		Checkpoints: w.ckpt}, nil
}

// Close stops the model server and closes the store.
func (s *Stack) Close() {
	if s.Model != nil {
		s.Model.Close()
	}
	s.Store.Close()
}

// Wiring implements session.Wiring for tests.
type Wiring struct {
	rt     turn.Runtime
	cfg    Config
	Broker *permission.Broker
	ckpt   *checkpoint.Service
	store  *store.Store
	mu     sync.Mutex
	lives  map[string]*session.Live
	// trackers are the sessions' checkpoint recorders (Config.Checkpoints).
	trackers map[string]*checkpoint.Tracker
}

// route sends the broker's events to the session that asked.
func (w *Wiring) route(e event.Event) {
	w.mu.Lock()
	l := w.lives[e.SessionID]
	w.mu.Unlock()
	if l != nil {
		l.Events.Emit(e)
	}
}

// Runtime returns the native runtime whatever the name.
func (w *Wiring) Runtime(_ string, l *session.Live) (turn.Runtime, error) {
	w.mu.Lock()
	tr := w.trackers[l.Record.ID]
	w.mu.Unlock()
	if tr != nil {
		return checkpoint.WrapRuntime(w.rt, tr), nil
	}
	return w.rt, nil
}

// Equip adds the built-in tools and Bash, and the permission engine.
func (w *Wiring) Equip(_ context.Context, l *session.Live) (func(), error) {
	ts := append(tools.Default(tools.Options{}), shell.NewBash())
	var tr *checkpoint.Tracker
	if w.cfg.Checkpoints {
		tr = w.ckpt.Tracker(l.Record.ID, l.Record.Cwd, checkpoint.Config{}, nil)
		ts = checkpoint.WrapTools(tr, ts)
	}
	l.Tools.Add(ts...)
	if !w.cfg.NoPermissions {
		mode, err := permission.ParseMode(l.Record.Mode)
		if err != nil || l.Record.Mode == "" {
			mode = permission.Normal
		}
		ask, err := permission.ParseToolFlags(w.cfg.AskTools, permission.ActionAsk)
		if err != nil {
			return nil, err
		}
		eng := permission.NewEngine(permission.EngineOptions{Mode: mode, WorkDir: l.Record.Cwd, Roots: l.Roots,
			FlagRules: ask, Asker: w.Broker, Emit: l.Events.Emit})
		l.Checker, l.ModeSetter = eng, eng
	}
	if w.cfg.Subagents {
		w.equipAgent(l)
	}
	id := l.Record.ID
	w.mu.Lock()
	w.lives[id] = l
	if tr != nil {
		w.trackers[id] = tr
	}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.lives[id] == l {
			delete(w.lives, id)
			delete(w.trackers, id)
		}
		w.mu.Unlock()
		if tr != nil {
			tr.Close()
		}
	}, nil
}

// equipAgent adds the Agent tool with the built-in agents.
func (w *Wiring) equipAgent(l *session.Live) {
	cat := &skills.Catalog{}
	runner := &subagent.Runner{Runtime: w.rt, Children: subagent.StoreChildren{Store: w.store},
		Agents: subagent.Load(nil, "", ""), Skills: cat, Bind: agenttools.Bind(cat, nil, 0)}
	parent := func(tool.Call) subagent.Parent {
		rec := l.Snapshot()
		mode := permission.Normal
		if m, ok := l.Checker.(interface{ Mode() permission.Mode }); ok {
			mode = m.Mode()
		}
		return subagent.Parent{SessionID: rec.ID, Cwd: rec.Cwd, Roots: l.Roots, DataDir: l.Env.DataDir, Model: rec.Model,
			Mode: mode, Checker: l.Checker, Tools: l.Tools, Emit: l.Events.Emit}
	}
	l.Tools.Add(&agenttools.Agent{Runner: runner, Parent: parent})
}
