// Package session runs live sessions: it opens or resumes a stored session,
// gives it an event emitter, tools, a permission checker and a runtime, and
// runs its turns one at a time. The CLI and the HTTP server both drive
// sessions through it, so a turn behaves the same from either.
package session

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/recorder"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Wiring builds what a live session needs beyond its stored record. The
// application (internal/app) provides it; tests provide small ones.
type Wiring interface {
	// Equip builds the session's equipment: it adds the session's tools to
	// s.Tools and may start background work (MCP servers). The live
	// session owns what it returns and closes it when it closes.
	Equip(ctx context.Context, s *Live) (Equipment, error)
}

// Equipment is what a Wiring built for one live session: its permission
// checker, its runtimes, its commands and whatever runs in the background
// (MCP servers, the checkpoint recorder, hooks). What it offers beyond
// that it names in Capabilities, which front ends reach through the
// Live's methods.
type Equipment interface {
	// Checker judges the session's tool calls; nil allows every call.
	Checker() permission.Checker
	// Runtime builds the runtime a turn runs under ("" is native).
	Runtime(name runtimes.Name) (turn.Runtime, error)
	// ExpandPrompt expands a custom slash command (`/name args`) before a
	// turn runs, under either runtime; other prompts come back unchanged.
	// It may run the command's ! commands (ctx is the turn's).
	ExpandPrompt(ctx context.Context, prompt string) Expansion
	// Capabilities names what else it offers (answering permission
	// questions, MCP control, ...); the Live reads it once, after Equip.
	Capabilities() Capabilities
	// Idle runs once when the idle delay passes after a turn without the next
	// one starting (the idle notification).
	Idle()
	// Close stops what the equipment started. It runs once.
	Close()
}

// Expansion is a prompt after command expansion.
type Expansion struct {
	Prompt string
	// Model, when set, runs this turn on another model (a command's
	// `model` field).
	Model string
}

// Manager opens live sessions over one store.
type Manager struct {
	store  store.Store
	wiring Wiring
	data   string
	holder store.Holder // this manager's identity in session leases
	lease  LeaseOptions
}

// NewManager returns a manager. dataDir holds spill files and the like.
func NewManager(st store.Store, w Wiring, dataDir string) *Manager {
	return &Manager{store: st, wiring: w, data: dataDir, holder: newHolder(), lease: DefaultLeaseOptions()}
}

// Store returns the manager's store.
func (m *Manager) Store() store.Store { return m.store }

// OpenRequest says which session to open and how.
type OpenRequest struct {
	ID       string // resume this session (a unique prefix works)
	Continue bool   // resume the latest session in Cwd
	Cwd      string
	AddDirs  []string
	Model    string // "provider/model"; empty keeps the stored one
	Runtime  string
	Mode     string
	// Title for a new session; empty: the first prompt's first line.
	Title string
	// ModeFromRequest makes Mode this process's choice even when empty
	// (then the config default applies): a resumed CLI session does not
	// inherit the permission mode an earlier run was given, as Claude
	// Code's --resume does not. The server leaves it false: there the mode
	// is a session setting.
	ModeFromRequest bool
	// Sinks receive the session's events from the start, including those
	// emitted while it is equipped (MCP servers starting or awaiting
	// approval), which a sink added after Open would miss.
	Sinks []event.Sink
	// MCPServers are extra MCP servers the caller brings for this process's
	// use of the session (an editor over ACP, --mcp-config), as the
	// "mcpServers" object of .mcp.json. The caller vouches for them, so they
	// start without the approval that a cloned project's servers need.
	MCPServers json.RawMessage
	// MCPOnly uses MCPServers alone, ignoring the servers of the config
	// files (Claude Code's --strict-mcp-config).
	MCPOnly bool
	// MCPProxy reaches MCPServers entries of type "sdk", which live inside
	// the caller (a Claude Agent SDK host): it carries one JSON-RPC message
	// to the named server and returns the answer.
	MCPProxy func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error)
	// NewID is the id a new session gets (Claude Code's --session-id);
	// empty: a generated one.
	NewID string
	// MessageSinks are called with every message the session stores, after
	// it is stored (a front end that prints whole messages, as Claude Code's
	// stream-json does).
	MessageSinks []func(message.Message)
	// Hooks are hooks the caller brings (a Claude Agent SDK host's hook
	// callbacks), run after the settings' hooks of each event, under the
	// same rules.
	Hooks hooks.Config
	// Asker answers the session's permission questions locally (a
	// terminal prompt, an editor's dialog, an embedding program's
	// function). nil and AnswerByReply false: nobody can be asked, and a
	// call that would ask is denied with an explanation.
	Asker permission.Asker
	// AnswerByReply says the front end shows permission_request events
	// and answers them through Live.Reply (the HTTP server, the terminal
	// UI), with or without an Asker.
	AnswerByReply bool
	// FlagRules are the front end's --allowedTools / --disallowedTools for
	// this session (the strongest rule layer but the hooks).
	FlagRules []permission.Rule
}

// Live is a session open in this process: the one handle every front end
// (the CLI, the terminal UI, the HTTP server, ACP, the Claude Code
// drop-in, an embedding program) runs it through. Its state is behind
// methods: Info and Snapshot read it, Run runs a turn, SetModel, SetMode
// and Update change it, Reply and Pending answer permission questions,
// MCPStatus/MCPAction/WaitMCP control MCP servers, Extensions and
// SlashCommands list what it loaded, Checkpoints and Rewind go back,
// History reads the conversation. docs/ARCHITECTURE.md ("Adding a front
// end") says how a front end uses it.
type Live struct {
	record store.Session // guarded by mu
	events *event.Emitter
	env    *tool.Env
	tools  *tool.Registry
	// checker judges the turns' tool calls: the equipment's checker
	// (AllowAll when it has none).
	checker permission.Checker
	roots   []string
	// Limits the configuration sets for turns that set none.
	maxTurns       int
	maxBudgetUSD   float64
	fallbackModels []string
	// idleAfter is how long after a turn the equipment's Idle runs (0: 60 s).
	idleAfter time.Duration
	idle      *time.Timer

	mgr       *Manager
	eq        Equipment
	caps      Capabilities
	opened    opened
	turnMu    sync.Mutex // one turn at a time
	mu        sync.Mutex
	closed    bool
	endReason string
}

// opened is what the OpenRequest brought for this process's use of the
// session, which the wiring reads while it equips it.
type opened struct {
	mcp       json.RawMessage
	mcpOnly   bool
	mcpProxy  func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error)
	msgSinks  []func(message.Message)
	hooks     hooks.Config
	asker     permission.Asker
	replies   bool
	flagRules []permission.Rule
}

// Open creates or resumes a session and equips it.
func (m *Manager) Open(ctx context.Context, req OpenRequest) (*Live, error) {
	extra, err := absAll(req.AddDirs) // before anything is stored
	if err != nil {
		return nil, err
	}
	rec, res, err := m.record(ctx, req)
	if err != nil {
		return nil, err
	}
	roots := append([]string{rec.Cwd}, extra...)
	l := &Live{record: rec, mgr: m, roots: roots, tools: tool.NewRegistry(),
		opened: opened{mcp: req.MCPServers, mcpOnly: req.MCPOnly, mcpProxy: req.MCPProxy, msgSinks: req.MessageSinks,
			hooks: req.Hooks, asker: req.Asker, replies: req.AnswerByReply, flagRules: req.FlagRules},
		maxTurns: res.MaxTurns, maxBudgetUSD: res.MaxBudgetUSD, fallbackModels: res.FallbackModels}
	l.events = event.NewEmitter(rec.ID, rec.LastSeq, req.Sinks...)
	l.env = tool.NewEnv(rec.ID, rec.Cwd, roots, m.data)
	l.env.Emit = l.events.Emit
	var eq Equipment
	if res.Equip != nil {
		eq, err = res.Equip(ctx, l)
	} else {
		eq, err = m.wiring.Equip(ctx, l)
	}
	if err != nil {
		l.env.State.Close()
		return nil, fmt.Errorf("prepare session %s: %w", rec.ID, err)
	}
	l.eq, l.caps = eq, eq.Capabilities()
	if l.checker = eq.Checker(); l.checker == nil {
		l.checker = permission.AllowAll{}
	}
	l.restoreNotices(ctx)
	return l, nil
}

// Equipment returns what the wiring built for the session, for the wiring
// itself and its tests: front ends use the Live's methods, which reach
// what it names in Capabilities.
func (l *Live) Equipment() Equipment { return l.eq }

// ID is the session's id.
func (l *Live) ID() string { return l.Snapshot().ID }

// Events is the session's emitter: a front end adds its sinks to it
// (or gives them in OpenRequest.Sinks to see the events of equipping).
func (l *Live) Events() *event.Emitter { return l.events }

// Env is what the session's tools run with (the wiring sets its backends).
func (l *Live) Env() *tool.Env { return l.env }

// Tools is the session's tool registry (the wiring adds to it).
func (l *Live) Tools() *tool.Registry { return l.tools }

// Roots are the folders the session's tools may touch: its working
// folder, then the extra ones (--add-dir).
func (l *Live) Roots() []string { return l.roots }

// Checker judges the session's tool calls.
func (l *Live) Checker() permission.Checker { return l.checker }

// SetIdleAfter sets how long after a turn the equipment's Idle runs
// (0: 60 s).
func (l *Live) SetIdleAfter(d time.Duration) {
	l.mu.Lock()
	l.idleAfter = d
	l.mu.Unlock()
}

// record finds or prepares the session's record, lets the wiring resolve
// its settings, and only then stores it: bad configuration fails before a
// new session exists.
func (m *Manager) record(ctx context.Context, req OpenRequest) (store.Session, Resolved, error) {
	var rec store.Session
	var err error
	isNew := false
	switch {
	case req.ID != "":
		rec, err = m.store.GetSession(ctx, req.ID)
		if errors.Is(err, store.ErrNotFound) {
			return rec, Resolved{}, fmt.Errorf("no session %q: list sessions with `tandem sessions list`", req.ID)
		}
	case req.Continue:
		cwd, cerr := absDir(req.Cwd)
		if cerr != nil {
			return rec, Resolved{}, cerr
		}
		rec, err = m.store.LatestSession(ctx, cwd)
		if errors.Is(err, store.ErrNotFound) {
			return rec, Resolved{}, fmt.Errorf("no earlier session in %s to continue: start one without --continue", cwd)
		}
	default:
		cwd, cerr := absDir(req.Cwd)
		if cerr != nil {
			return rec, Resolved{}, cerr
		}
		rec, isNew = store.Session{ID: req.NewID, Cwd: cwd, Title: req.Title}, true
	}
	if err != nil {
		return rec, Resolved{}, fmt.Errorf("open session: %w", err)
	}
	stored := rec
	if req.Model != "" {
		rec.Model = req.Model
	}
	if req.Runtime != "" {
		rec.Runtime = req.Runtime
	}
	if req.Mode != "" || req.ModeFromRequest {
		rec.Mode = req.Mode // empty: the config default decides; the stored value is kept for the server
	}
	res := Resolved{Model: rec.Model, Runtime: runtimes.Name(rec.Runtime), Mode: permission.Mode(rec.Mode)}
	if r, ok := m.wiring.(Resolver); ok {
		if res, err = r.Resolve(ctx, rec, isNew || req.Model != ""); err != nil {
			return rec, res, err
		}
	}
	// As stored.
	runtime, mode := string(res.Runtime), string(res.Mode)
	if isNew {
		rec.Model, rec.Runtime, rec.Mode = res.Model, runtime, mode
		rec, err = m.store.CreateSession(ctx, rec)
		return rec, res, err
	}
	upd := store.SessionUpdate{}
	// A resumed session keeps its stored choices unless this request
	// names new ones; an old record without a model or runtime gets the
	// resolved defaults.
	if res.Model != stored.Model && (req.Model != "" || stored.Model == "") && res.Model != "" {
		upd.Model = &res.Model
	}
	if runtime != stored.Runtime && (req.Runtime != "" || stored.Runtime == "") && runtime != "" {
		upd.Runtime = &runtime
	}
	if req.Mode != "" && mode != stored.Mode {
		upd.Mode = &mode
	}
	rec = stored
	if upd.Model != nil {
		rec.Model = *upd.Model
	}
	if upd.Runtime != nil {
		rec.Runtime = *upd.Runtime
	}
	if req.Mode != "" || req.ModeFromRequest {
		rec.Mode = mode
	}
	if upd != (store.SessionUpdate{}) {
		if err := m.store.UpdateSession(ctx, rec.ID, upd); err != nil {
			return rec, res, fmt.Errorf("update session %s: %w", rec.ID, err)
		}
	}
	return rec, res, nil
}

// Run runs one turn. Turns of one session never overlap: a second call
// waits for the first to finish. Across processes the session's lease
// keeps it so: a turn waits briefly for a session another process is
// running, then fails with a *store.BusyError (errors.Is store.ErrBusy).
func (l *Live) Run(ctx context.Context, prompt string, opts TurnOptions) (event.Event, error) {
	l.turnMu.Lock()
	defer l.turnMu.Unlock()
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return event.Event{}, fmt.Errorf("session %s is closed", l.record.ID)
	}
	l.mu.Unlock()
	ctx, end, err := l.beginTurn(ctx)
	if err != nil {
		return event.Event{}, err
	}
	defer end()
	l.mu.Lock()
	rec := l.record
	l.mu.Unlock()
	l.stopIdle()
	defer l.armIdle()
	rt, err := l.eq.Runtime(runtimes.Name(rec.Runtime))
	if err != nil {
		return event.Event{}, err
	}
	// What tools read of the turn (sub-agents inherit it); grants made
	// during the turn (a skill's allowed-tools) end with it.
	defer l.env.State.EndTurn()
	model := rec.Model
	exp := l.eq.ExpandPrompt(ctx, prompt)
	prompt = exp.Prompt
	if exp.Model != "" {
		model = exp.Model
	}
	l.env.State.SetTurn(tool.Turn{Model: model, Mode: string(l.mode(rec.Mode)), AllowedTools: opts.AllowedTools, DisallowedTools: opts.DisallowedTools})
	in := turn.Input{SessionID: rec.ID, Prompt: prompt, Cwd: rec.Cwd, Roots: l.roots, Model: model,
		Mode: l.mode(rec.Mode), MaxTurns: cmp.Or(opts.MaxTurns, l.maxTurns), AppendSystemPrompt: opts.AppendSystemPrompt,
		SystemPrompt: opts.SystemPrompt, AllowedTools: opts.AllowedTools, DisallowedTools: opts.DisallowedTools,
		Images: opts.Images, FallbackModels: opts.FallbackModels, JSONSchema: opts.JSONSchema,
		ThinkingBudget: opts.ThinkingBudget, Effort: opts.Effort, Resume: opts.Resume, MaxBudgetUSD: cmp.Or(opts.MaxBudgetUSD, l.maxBudgetUSD), Ledger: opts.Ledger}
	if len(in.FallbackModels) == 0 {
		in.FallbackModels = l.fallbackModels
	}
	var rcd turn.Recorder = recorder.ForSessionStored(l.mgr.store, rec.ID, l.events.Stored)
	if len(l.opened.msgSinks) > 0 {
		rcd = notifyingRecorder{Recorder: rcd, sinks: l.opened.msgSinks}
	}
	deps := turn.Deps{Events: l.events, Recorder: rcd, Checker: l.checker, Tools: l.tools, Env: l.env}
	res, err := runGuarded(ctx, rt, in, deps)
	// The seq must survive even an interrupted turn, so SSE resumption and
	// the next turn's numbering stay right.
	if uerr := l.SaveSeq(context.WithoutCancel(ctx)); uerr != nil && err == nil {
		err = uerr
	}
	_ = l.refresh(context.WithoutCancel(ctx))
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // the lease was lost: say so rather than "context canceled"
	}
	return res, err
}

// beginTurn takes the session's lease and reloads the record: another
// process may have run turns since this one opened the session, and this
// turn continues from what it stored. The returned context is cancelled
// if the lease is lost mid-turn (the turn then ends as interrupted, after
// an error event saying why); end releases the lease.
func (l *Live) beginTurn(ctx context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithCancelCause(ctx)
	lost := func(cause error) {
		l.events.Emit(event.Event{Type: event.Error, Error: cause.Error()})
		cancel(cause)
	}
	release, err := l.mgr.acquire(ctx, l.record.ID, lost)
	if err != nil {
		cancel(nil)
		if errors.Is(err, store.ErrBusy) {
			// The caller reports this with events of its own (the server
			// does): number them after what the other runner stored.
			if fresh, gerr := l.mgr.store.GetSession(context.WithoutCancel(ctx), l.record.ID); gerr == nil {
				l.events.AdvanceTo(fresh.LastSeq)
			}
		}
		return nil, nil, err
	}
	if err := l.refresh(ctx); err != nil {
		release()
		cancel(nil)
		return nil, nil, err
	}
	// The turn's events are stored only while this lease is ours
	// (event.Fencer): a runner that lost it adds nothing to the log.
	l.events.Fence(l.mgr.holder.ID)
	return ctx, func() {
		// Every event of the turn stored before the lease goes: one
		// stored after it would be refused as another runner's.
		l.events.Fence("")
		_, _ = l.events.Stored(context.WithoutCancel(ctx))
		release()
		cancel(nil)
	}, nil
}

// refresh reloads the stored record, keeping this process's per-run
// choices (model, runtime, mode set on open), and moves the emitter past
// any seq another process used.
func (l *Live) refresh(ctx context.Context) error {
	fresh, err := l.mgr.store.GetSession(ctx, l.record.ID)
	if err != nil {
		return fmt.Errorf("load session %s: %w", l.record.ID, err)
	}
	l.events.AdvanceTo(fresh.LastSeq)
	l.mu.Lock()
	fresh.Model, fresh.Runtime, fresh.Mode = l.record.Model, l.record.Runtime, l.record.Mode
	l.record = fresh
	l.mu.Unlock()
	return nil
}

// Update changes model, runtime or mode for the turns that follow, as
// given (SetModel and SetMode check their value first). A model switch
// runs the equipment's ModelSwitch hooks, whose refusal is Update's error
// (nothing changes).
func (l *Live) Update(ctx context.Context, model, runtime, mode string) error {
	if mode != "" {
		// The engine knows only canonical modes: "plan" must arrive as explore.
		m, err := permission.ParseMode(mode)
		if err != nil {
			return err
		}
		mode = string(m)
	}
	l.mu.Lock()
	prevModel := l.record.Model
	l.mu.Unlock()
	sw := l.caps.ModelSwitch
	switching := model != "" && model != prevModel && sw != nil
	if switching {
		if err := sw.PreModelSwitch(ctx, prevModel, model); err != nil {
			return err
		}
	}
	upd := store.SessionUpdate{}
	l.mu.Lock()
	prevMode := l.record.Mode
	if model != "" {
		upd.Model, l.record.Model = &model, model
	}
	if runtime != "" {
		upd.Runtime, l.record.Runtime = &runtime, runtime
	}
	if mode != "" {
		upd.Mode, l.record.Mode = &mode, mode
	}
	id := l.record.ID
	l.mu.Unlock()
	if err := l.mgr.store.UpdateSession(ctx, id, upd); err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	if mode != "" && mode != prevMode {
		if e := l.caps.Engine; e != nil {
			e.SetMode(permission.Mode(mode)) // the engine emits mode_changed
		} else {
			l.events.Emit(event.Event{Type: event.ModeChanged, Mode: mode, PreviousMode: prevMode})
		}
	}
	if switching {
		sw.PostModelSwitch(ctx, prevModel, model)
	}
	return nil
}

// SetModel switches the model of the turns that follow, after checking it
// as a new session's model is checked (the folder's settings, the
// provider's key, under the session's runtime): the one way every front
// end switches models. A model that does not resolve fails with a
// *ModelError; a ModelSwitch hook's refusal is returned as it is.
func (l *Live) SetModel(ctx context.Context, model string) error {
	if model == "" {
		return &ModelError{Err: errors.New("no model given: name one as provider/model (tandem models lists them)")}
	}
	if err := l.CheckModel(ctx, model); err != nil {
		return &ModelError{Model: model, Err: err}
	}
	return l.Update(ctx, model, "", "")
}

// ModelError is SetModel's refusal of a model that does not resolve (an
// unknown model, a provider without a key): the caller's mistake, which a
// front end reports as bad input.
type ModelError struct {
	Model string
	Err   error // says the model's name and the fix
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// SetMode switches the permission mode for the turns that follow and for
// questions still to come in a running turn. mode is one of
// permission.Modes or a Claude Code alias ("plan").
func (l *Live) SetMode(ctx context.Context, mode string) error {
	if mode == "" {
		return errors.New("no permission mode given: use one of " + permission.ModeList())
	}
	return l.Update(ctx, "", "", mode)
}

// SetTitle names the session (a hook's sessionTitle): the first line of
// title, which must not be blank.
func (l *Live) SetTitle(ctx context.Context, title string) error {
	title, _, _ = strings.Cut(strings.TrimSpace(title), "\n")
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("the session title is blank: give a non-empty first line")
	}
	if err := l.mgr.store.UpdateSession(ctx, l.record.ID, store.SessionUpdate{Title: &title}); err != nil {
		return fmt.Errorf("set the title of session %s: %w", l.record.ID, err)
	}
	l.mu.Lock()
	l.record.Title = title
	l.mu.Unlock()
	return nil
}

// mode is the permission mode a turn runs in: the engine's own (which
// also covers a mode from the config files, and is canonical: explore,
// not Claude Code's "plan"), else the stored one.
func (l *Live) mode(stored string) permission.Mode {
	if e := l.caps.Engine; e != nil {
		return e.Mode()
	}
	if m, err := permission.ParseMode(stored); err == nil {
		return m
	}
	return permission.Mode(stored)
}

// Mode is the permission mode in force.
func (l *Live) Mode() permission.Mode { return l.mode(l.Snapshot().Mode) }

// Info is the stored record with the permission mode in force (config
// defaults included) as its Mode: what a front end shows.
func (l *Live) Info() Summary {
	r := summaryOf(l.Snapshot())
	r.Mode = string(l.mode(r.Mode))
	return r
}

// RequestMCP returns the MCP servers the opener brought (OpenRequest.MCPServers)
// and whether they are the only ones (OpenRequest.MCPOnly).
func (l *Live) RequestMCP() (servers json.RawMessage, only bool) {
	return l.opened.mcp, l.opened.mcpOnly
}

// RequestHooks returns the hooks the opener brought (OpenRequest.Hooks).
func (l *Live) RequestHooks() hooks.Config { return l.opened.hooks }

// MCPProxy returns OpenRequest.MCPProxy.
func (l *Live) MCPProxy() func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error) {
	return l.opened.mcpProxy
}

// RequestAsker returns who answers the session's permission questions
// (OpenRequest.Asker, AnswerByReply).
func (l *Live) RequestAsker() (local permission.Asker, byReply bool) {
	return l.opened.asker, l.opened.replies
}

// RequestFlagRules returns OpenRequest.FlagRules.
func (l *Live) RequestFlagRules() []permission.Rule { return l.opened.flagRules }

// Snapshot returns the current stored record.
func (l *Live) Snapshot() store.Session {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.record
}

// CloseFor is Close saying why the session ends, for the SessionEnd hook:
// Claude Code's reasons (hooks.EndClear, EndResume, EndPromptInputExit,
// EndLogout, EndOther).
func (l *Live) CloseFor(reason string) {
	l.mu.Lock()
	if !l.closed {
		l.endReason = reason
	}
	l.mu.Unlock()
	l.Close()
}

// EndReason is why the session ends: what CloseFor said, else "other".
func (l *Live) EndReason() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.endReason == "" {
		return hooks.EndOther
	}
	return l.endReason
}

// Close ends the session in this process: background jobs and MCP servers
// stop. The stored session stays. The SessionEnd reason is "other" unless
// CloseFor said otherwise.
func (l *Live) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	l.stopIdle()
	l.env.State.Close() // background tasks stop here, each saying so
	l.keepNotices(context.Background())
	l.eq.Close()
	// Events emitted outside a turn (MCP status, mode changes) advance the
	// seq too; keep it so a reopened session never reuses a number.
	_ = l.SaveSeq(context.Background())
}

// SaveSeq stores the emitter's last seq, for events emitted outside a turn
// (a turn stores it itself).
func (l *Live) SaveSeq(ctx context.Context) error {
	// Never ahead of the stored log (see recorder.ForSessionStored).
	seq, err := l.events.Stored(ctx)
	if err != nil {
		return fmt.Errorf("save last seq of session %s: %w", l.record.ID, err)
	}
	if err := l.mgr.store.UpdateSession(ctx, l.record.ID, store.SessionUpdate{LastSeq: &seq}); err != nil {
		return fmt.Errorf("save last seq of session %s: %w", l.record.ID, err)
	}
	return nil
}

// TurnOptions are per-turn settings from flags or the API.
type TurnOptions struct {
	MaxTurns int
	// MaxBudgetUSD stops the turn before a model call once it has spent
	// this much (0: no limit).
	MaxBudgetUSD       float64
	AppendSystemPrompt string
	SystemPrompt       string
	AllowedTools       []string
	DisallowedTools    []string
	Images             []message.Block
	// FallbackModels replace the configured ones for this turn.
	FallbackModels []string
	// Ledger backs the turn's budget with a day's spending shared with
	// other turns (turn.Input.Ledger: tandem serve's daily budget per
	// user). Not encoded: the process running the turn provides it.
	Ledger turn.Ledger `json:"-"`
	// JSONSchema makes the final answer conform to this JSON Schema.
	JSONSchema json.RawMessage
	// ThinkingBudget overrides the configured thinking budget (0: off).
	ThinkingBudget *int64
	// Effort overrides the configured effort for this turn ("": the
	// config's), under either runtime.
	Effort string
	// Resume continues a turn another process began (turn.Input.Resume):
	// the prompt is stored already and is not added again.
	Resume bool
	// Origin names the front end that sent the prompt ("telegram:CHAT"),
	// carried in the turn's user_message status (RunShared) so a front
	// end sharing the session tells its own turns from others'. The turn
	// itself ignores it.
	Origin string `json:",omitempty"`
}

// ResolveDir makes a working folder absolute with symlinks resolved (so a
// session started through a link is found again by --continue) and checks
// that it is a folder; "" means the current folder.
func ResolveDir(dir string) (string, error) { return absDir(dir) }

func absDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current folder: %w", err)
		}
		dir = d
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("folder %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("working folder %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("working folder %s is not a folder", abs)
	}
	return abs, nil
}

func absAll(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		a, err := absDir(d)
		if err != nil {
			return nil, fmt.Errorf("extra folder (--add-dir): %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// runGuarded runs a turn and turns a panic in the runtime into an error:
// what the turn stored so far stays, and the process (a server with many
// sessions) goes on.
func runGuarded(ctx context.Context, rt turn.Runtime, in turn.Input, d turn.Deps) (res event.Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = event.Event{}, fmt.Errorf("internal error in the %s runtime: %v (the session is kept; please report this)", rt.Name(), p)
		}
	}()
	return rt.RunTurn(ctx, in, d)
}

// notifyingRecorder tells the message sinks about every stored message.
type notifyingRecorder struct {
	turn.Recorder
	sinks []func(message.Message)
}

func (r notifyingRecorder) Append(ctx context.Context, m message.Message) error {
	if err := r.Recorder.Append(ctx, m); err != nil {
		return err
	}
	for _, s := range r.sinks {
		s(m)
	}
	return nil
}
