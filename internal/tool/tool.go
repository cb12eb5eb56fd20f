// Package tool defines what a tool is to the agent loop: a name, a JSON
// schema, a model-facing description and an Execute that never fails the
// run (bad input becomes an error result the model can act on). The tools
// themselves live in internal/tools; MCP servers contribute more through the
// same interface.
package tool

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// Tool is one capability offered to the model.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON schema of the input object.
	Schema() json.RawMessage
	// Execute runs one call. It returns an error result, not a Go error, for
	// anything the model can fix; the error return is reserved for failures
	// of tandem itself and ends the turn.
	Execute(ctx context.Context, call Call) (Result, error)
}

// ReadOnly is implemented by tools that never change anything outside
// tandem (Read, Glob, Grep, ...). The permission engine uses it.
type ReadOnly interface {
	ReadOnly() bool
}

// Call is one invocation.
type Call struct {
	ID    string          // tool_use id
	Name  string          // tool name as the model called it
	Input json.RawMessage // raw input from the model, unvalidated
	Env   *Env
}

// Result is what the model (and the UI) get back.
type Result struct {
	// Content is the text the model reads.
	Content string
	// Images go to providers that accept images in tool results.
	Images  []message.Block
	IsError bool
	// Diff is a unified diff of what an edit changed, for the UI.
	Diff string
	// Meta holds tool-specific facts for the UI and tests (exit_code,
	// file_path, truncated, spill_path, ...).
	Meta map[string]any
	// Timeout is true when the call was stopped for running too long.
	Timeout bool
	// Usage and CostUSD are tokens a tool spent on model calls of its own
	// (a sub-agent); the loop adds them to the turn's totals. CostUnknown
	// says some of that usage had no price.
	Usage       *message.Usage
	CostUSD     *float64
	CostUnknown bool
}

// ErrorResult is a convenience for an error the model can act on.
func ErrorResult(msg string) Result { return Result{Content: msg, IsError: true} }

// Env is what a tool call sees of its session. One Env lives as long as the
// session does in this process; State carries tools' own per-session state
// (files read and when, the shell's working folder, background jobs, todos).
type Env struct {
	SessionID string
	// WorkDir is the session's working folder (the workspace root).
	WorkDir string
	// Roots are the folders file tools may touch: WorkDir plus --add-dir.
	Roots []string
	// DataDir is tandem's data folder (spill files for long outputs go under it).
	DataDir string
	// Emit sends events (tool_output, task_update, tool_timeout). It stamps
	// nothing; the session's emitter does. Never nil (see NewEnv).
	Emit func(event.Event)
	// State is per-session mutable state shared by tool calls.
	State *State
	// Files and Terminal are where file contents are read and written and
	// where foreground commands run (see backend.go); nil: locally.
	Files    Files
	Terminal Terminal
	// Sandbox confines the processes tools start (Bash, background jobs)
	// to the session's OS sandbox; nil: the sandbox is off.
	Sandbox Confiner
}

// NewEnv returns an Env with a no-op Emit and fresh State.
func NewEnv(sessionID, workDir string, roots []string, dataDir string) *Env {
	if len(roots) == 0 {
		roots = []string{workDir}
	}
	return &Env{SessionID: sessionID, WorkDir: workDir, Roots: roots, DataDir: dataDir,
		Emit: func(event.Event) {}, State: NewState()}
}

// State is a small typed-by-convention store; each tool keeps its own key.
type State struct {
	mu     sync.Mutex
	values map[string]any
	closer []func()
}

// NewState returns empty state.
func NewState() *State { return &State{values: map[string]any{}} }

// Load returns the value under key, creating it with init on first use.
func (s *State) Load(key string, init func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[key]
	if !ok {
		v = init()
		s.values[key] = v
	}
	return v
}

// OnClose registers cleanup run when the session ends (background jobs die
// with the session).
func (s *State) OnClose(f func()) {
	s.mu.Lock()
	s.closer = append(s.closer, f)
	s.mu.Unlock()
}

// Close runs the registered cleanups, last first.
func (s *State) Close() {
	s.mu.Lock()
	fs := s.closer
	s.closer = nil
	s.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// Registry holds the tools offered in a session. Safe for concurrent use:
// MCP servers add and remove tools while a session lives.
type Registry struct {
	mu      sync.RWMutex
	tools   map[string]Tool
	aliases map[string]string
}

// Alias makes Get(alias) return the tool named target, without offering
// the alias as a tool of its own (Claude Code's old name "Task" for
// "Agent").
func (r *Registry) Alias(alias, target string) {
	r.mu.Lock()
	if r.aliases == nil {
		r.aliases = map[string]string{}
	}
	r.aliases[alias] = target
	r.mu.Unlock()
}

// NewRegistry returns a registry holding ts.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		r.tools[t.Name()] = t
	}
	return r
}

// Add registers or replaces tools.
func (r *Registry) Add(ts ...Tool) {
	r.mu.Lock()
	for _, t := range ts {
		r.tools[t.Name()] = t
	}
	r.mu.Unlock()
}

// Remove unregisters the named tools.
func (r *Registry) Remove(names ...string) {
	r.mu.Lock()
	for _, n := range names {
		delete(r.tools, n)
	}
	r.mu.Unlock()
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	if !ok && r.aliases[name] != "" {
		t, ok = r.tools[r.aliases[name]]
	}
	return t, ok
}

// List returns the tools sorted by name, so the model sees a stable order
// (which also keeps the provider's prompt cache warm).
func (r *Registry) List() []Tool {
	r.mu.RLock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Names returns the sorted tool names.
func (r *Registry) Names() []string {
	ts := r.List()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}
