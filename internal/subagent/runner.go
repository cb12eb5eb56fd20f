package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Settings is the "subagents" config section.
type Settings struct {
	// MaxParallel bounds the sub-agents of one session running at once
	// (0: DefaultMaxParallel). Further calls wait for a slot.
	MaxParallel int `json:"max_parallel,omitempty"`
	// MaxDepth is how deep sub-agents may nest: 1 (the default) means the
	// session's agent may start children and children may not.
	MaxDepth int `json:"max_depth,omitempty"`
}

// Defaults.
const (
	DefaultMaxParallel = 4
	DefaultMaxDepth    = 1
	// maxStopContinues bounds how often a SubagentStop hook may send a
	// child back to work.
	maxStopContinues = 3
)

// SubagentHooks runs the SubagentStart and SubagentStop hooks. The hooks
// package's adapter implements it; nil means no hooks.
type SubagentHooks interface {
	// SubagentStart may return context added to the child's instructions.
	SubagentStart(ctx context.Context, sessionID, cwd, agentID, agentType string) (additionalContext string, err error)
	// SubagentStop may return a reason to keep the child working.
	SubagentStop(ctx context.Context, sessionID, cwd, agentID, agentType, lastMessage string) (continueReason string, err error)
}

// Children creates the stored child sessions.
type Children interface {
	// NewChild stores a session under parentID, linked to the parent's
	// tool call parentToolUseID that started it, and returns its id and a
	// recorder for it; lastSeq reports the child emitter's seq.
	NewChild(ctx context.Context, parentID, parentToolUseID, cwd, model, title string, lastSeq func() int64) (string, turn.Recorder, error)
}

// Parent is the context a sub-agent starts from: everything it inherits.
type Parent struct {
	SessionID string
	Cwd       string
	Roots     []string
	DataDir   string
	// Files and Terminal are the parent's backends (an editor's buffers
	// and terminals): the child's tools use them too.
	Files    tool.Files
	Terminal tool.Terminal
	// Sandbox is the OS sandbox the child's commands run in (the parent's,
	// or an isolated child's own); nil: off.
	Sandbox tool.Confiner
	Model   string
	Mode    permission.Mode
	// Checker is the parent's: same rules, hooks and asker.
	Checker permission.Checker
	// Tools are the parent's tools; the child gets a subset.
	Tools *tool.Registry
	// AllowedTools and DisallowedTools are the parent turn's filters, which
	// the child keeps.
	AllowedTools, DisallowedTools []string
	// Emit is the parent's event stream.
	Emit func(event.Event)
	// Depth is 0 for a session's own agent.
	Depth int
}

// Task is one sub-agent run.
type Task struct {
	Agent       *Def
	Description string
	Prompt      string
	// ToolUseID is the tool call that started the run; it marks every
	// forwarded event.
	ToolUseID string
	// Model and Effort override the agent's (a fork skill's fields).
	Model, Effort string
	// Instructions are added to the agent's own (a fork skill's body is the
	// prompt; preloaded skills go here).
	Instructions string
	// Isolation is the call's isolation ("" or IsolationWorktree; an
	// agent's own is in Def.Isolation).
	Isolation string
}

// Outcome is a finished run.
type Outcome struct {
	Text      string
	SessionID string
	Subtype   string
	IsError   bool
	Error     string
	Usage     message.Usage
	CostUSD   *float64
	// Worktree says where an isolated child's changes were kept (its
	// branch and folder); "" when it changed nothing or was not isolated.
	Worktree string
}

// Runner starts sub-agents for one session.
type Runner struct {
	// Runtime runs the child's turns (the native loop).
	Runtime  turn.Runtime
	Children Children
	Agents   *Catalog
	Skills   *skills.Catalog
	Settings Settings
	// ResolveModel turns an agent's model field into a "provider/model"
	// spec given the parent's; nil keeps the parent's.
	ResolveModel func(field, parent string) string
	// Bind builds the tools that act for a given parent (Agent, Skill), so
	// a child's own calls of them start grandchildren correctly.
	Bind  func(r *Runner, p Parent) []tool.Tool
	Hooks SubagentHooks
	// Isolate gives an isolated run its own workspace (isolation.go); nil:
	// isolation is refused.
	Isolate Isolator

	once sync.Once
	sem  chan struct{}
}

func (r *Runner) slots() chan struct{} {
	r.once.Do(func() {
		n := r.Settings.MaxParallel
		if n <= 0 {
			n = DefaultMaxParallel
		}
		r.sem = make(chan struct{}, n)
	})
	return r.sem
}

// MaxDepth is the configured nesting limit.
func (r *Runner) MaxDepth() int {
	if r.Settings.MaxDepth > 0 {
		return r.Settings.MaxDepth
	}
	return DefaultMaxDepth
}

// CanSpawn reports whether an agent at depth may start children.
func (r *Runner) CanSpawn(depth int) bool { return depth < r.MaxDepth() }

// Run runs one sub-agent to its end. Failures of the child come back in
// the Outcome (IsError); the error return is for what kept it from
// starting.
func (r *Runner) Run(ctx context.Context, p Parent, t Task) (Outcome, error) {
	if t.Agent == nil {
		return Outcome{}, errors.New("no agent definition")
	}
	if !r.CanSpawn(p.Depth) {
		return Outcome{}, fmt.Errorf("sub-agents may not start further sub-agents here (nesting limit %d: subagents.max_depth)", r.MaxDepth())
	}
	if iso := firstNonEmpty(t.Isolation, t.Agent.Isolation); iso != "" {
		return r.runIsolated(ctx, p, t, iso)
	}
	// Only top-level calls take a slot: a child waiting for a slot its own
	// parent holds would wait forever.
	if p.Depth == 0 {
		select {
		case r.slots() <- struct{}{}:
			defer func() { <-r.slots() }()
		case <-ctx.Done():
			return Outcome{Subtype: event.SubtypeInterrupted, IsError: true, Error: "interrupted before the sub-agent started"}, nil
		}
	}
	model := p.Model
	field := t.Model
	if field == "" {
		field = t.Agent.Model
	}
	if r.ResolveModel != nil {
		model = r.ResolveModel(field, p.Model)
	}
	em := event.NewEmitter("", 0, forwarder{parent: p.Emit, toolUseID: t.ToolUseID})
	title := t.Agent.Name + ": " + firstLine(t.Description, t.Prompt)
	childID, rec, err := r.Children.NewChild(context.WithoutCancel(ctx), p.SessionID, t.ToolUseID, p.Cwd, model, title, em.LastSeq)
	if err != nil {
		return Outcome{}, fmt.Errorf("store the sub-agent session: %w", err)
	}
	em.SetSessionID(childID)
	child := r.childParent(p, t.Agent, childID, model, em)
	env := tool.NewEnv(childID, p.Cwd, p.Roots, p.DataDir)
	env.Emit, env.Files, env.Terminal, env.Sandbox = em.Emit, p.Files, p.Terminal, p.Sandbox
	defer env.State.Close()
	env.State.SetTurn(tool.Turn{Model: model, Mode: string(child.Mode), AllowedTools: p.AllowedTools, DisallowedTools: p.DisallowedTools})
	defer env.State.EndTurn()

	in := turn.Input{SessionID: childID, Prompt: t.Prompt, Cwd: p.Cwd, Roots: p.Roots, Model: model, Mode: child.Mode,
		MaxTurns: t.Agent.MaxTurns, AppendSystemPrompt: r.instructions(ctx, p, t, childID),
		AllowedTools: p.AllowedTools, DisallowedTools: p.DisallowedTools, Effort: firstNonEmpty(t.Effort, t.Agent.Effort)}
	// The child spends from its parent's turn's budget, if it has one.
	in.Budget = turn.BudgetFrom(ctx)
	deps := turn.Deps{Events: em, Recorder: rec, Checker: child.Checker, Tools: child.Tools, Env: env}
	out := Outcome{SessionID: childID}
	costKnown := true
	for round := 0; ; round++ {
		res, err := runGuarded(ctx, r.Runtime, in, deps)
		if err != nil {
			return out, fmt.Errorf("sub-agent %s: %w", t.Agent.Name, err)
		}
		if res.Usage != nil {
			out.Usage = out.Usage.Add(*res.Usage)
		}
		switch {
		case res.CostUSD == nil:
			costKnown = false
		case costKnown:
			sum := *res.CostUSD
			if out.CostUSD != nil {
				sum += *out.CostUSD
			}
			out.CostUSD = &sum
		}
		out.Text, out.Subtype, out.IsError, out.Error = res.Result, res.Subtype, res.IsError, res.Error
		if res.IsError || ctx.Err() != nil || round >= maxStopContinues {
			break
		}
		again := r.stopHook(ctx, p, childID, t.Agent.Name, res.Result)
		if again == "" {
			break
		}
		in.Prompt = again
	}
	if !costKnown {
		out.CostUSD = nil
	}
	return out, nil
}

// childParent is the context the child runs in, and that its own Agent and
// Skill tools start grandchildren from.
func (r *Runner) childParent(p Parent, def *Def, childID, model string, em *event.Emitter) Parent {
	c := p
	c.SessionID, c.Model, c.Depth, c.Emit = childID, model, p.Depth+1, em.Emit
	c.Mode = p.Mode
	if def.PermissionMode != "" {
		c.Mode = permission.Stricter(p.Mode, def.PermissionMode)
	}
	if c.Mode != p.Mode {
		if n, ok := p.Checker.(interface {
			Narrowed(permission.Mode) permission.Checker
		}); ok {
			c.Checker = n.Narrowed(c.Mode)
		} else {
			c.Checker = readOnlyChecker{p.Checker}
		}
	}
	c.Tools = r.childTools(p, c, def)
	return c
}

// childTools is the parent's tool set narrowed by the agent's tools and
// disallowedTools, without the tools that put a question to the user, with the sub-agent tools rebound to the child (or
// removed when it may not nest).
func (r *Runner) childTools(p, child Parent, def *Def) *tool.Registry {
	reg := tool.NewRegistry()
	var bound []tool.Tool
	if r.Bind != nil {
		bound = r.Bind(r, child)
	}
	rebound := map[string]bool{}
	for _, t := range bound {
		rebound[t.Name()] = true
	}
	for _, t := range p.Tools.List() {
		name := t.Name()
		if rebound[name] || !listed(def.Tools, name, true) || listed(def.DisallowedTools, name, false) {
			continue
		}
		if tool.InteractionOf(t) != "" {
			// A sub-agent works for the parent, not the user: it neither
			// asks the user questions nor gets a plan approved (as in
			// Claude Code); it reports back and the parent asks.
			continue
		}
		reg.Add(t)
	}
	for _, t := range bound {
		name := t.Name()
		if _, parentHas := p.Tools.Get(name); !parentHas || !listed(def.Tools, name, true) || listed(def.DisallowedTools, name, false) {
			continue
		}
		if isAgentTool(name) && !r.CanSpawn(child.Depth) {
			continue
		}
		reg.Add(t)
	}
	return reg
}

// AgentToolNames are the names the sub-agent tool answers to.
var AgentToolNames = []string{"Agent", "Task"}

func isAgentTool(name string) bool {
	for _, n := range AgentToolNames {
		if n == name {
			return true
		}
	}
	return false
}

// listed reports whether a tool list names the tool; an empty list means
// all when emptyMeansAll. Entries are rule syntax: "Bash(git *)" names
// Bash, "mcp__github" every tool of that server, "*" everything.
func listed(list []string, name string, emptyMeansAll bool) bool {
	if len(list) == 0 {
		return emptyMeansAll
	}
	for _, e := range list {
		base, _, _ := strings.Cut(strings.TrimSpace(e), "(")
		switch {
		case base == "*" || base == name:
			return true
		case isAgentTool(base) && isAgentTool(name):
			return true
		case strings.HasPrefix(base, "mcp__") && strings.Count(base, "__") == 1 && strings.HasPrefix(name, base+"__"):
			return true
		}
	}
	return false
}

func (r *Runner) instructions(ctx context.Context, p Parent, t Task, childID string) string {
	parts := []string{t.Agent.Prompt}
	if t.Instructions != "" {
		parts = append(parts, t.Instructions)
	}
	for _, name := range t.Agent.Skills {
		if s := r.Skills.Skill(name); s != nil {
			parts = append(parts, fmt.Sprintf("Skill %q (preloaded):\n\n%s", s.Name, s.Prompt("")))
		}
	}
	if r.Hooks != nil {
		extra, err := r.Hooks.SubagentStart(ctx, p.SessionID, p.Cwd, childID, t.Agent.Name)
		if err != nil {
			p.Emit(event.Event{Type: event.Error, ToolUseID: t.ToolUseID, Error: "SubagentStart hook: " + err.Error()})
		}
		if extra != "" {
			parts = append(parts, extra)
		}
	}
	return strings.Join(nonEmpty(parts), "\n\n")
}

func (r *Runner) stopHook(ctx context.Context, p Parent, childID, agentType, last string) string {
	if r.Hooks == nil {
		return ""
	}
	reason, err := r.Hooks.SubagentStop(ctx, p.SessionID, p.Cwd, childID, agentType, last)
	if err != nil {
		p.Emit(event.Event{Type: event.Error, Error: "SubagentStop hook: " + err.Error()})
		return ""
	}
	return reason
}

// forwarder passes a child's events into the parent's stream, marked with
// the tool call that started the child. The child's status, result and done
// stay out: to a consumer they would look like the parent's own turn
// starting or ending.
type forwarder struct {
	parent    func(event.Event)
	toolUseID string
}

func (f forwarder) Emit(e event.Event) {
	switch e.Type {
	case event.Status, event.Result, event.Done:
		return
	}
	if e.ParentToolUseID == "" {
		e.ParentToolUseID = f.toolUseID
	}
	e.SessionID, e.Seq = "", 0 // the parent stamps its own
	f.parent(e)
}

// readOnlyChecker narrows a checker that cannot narrow itself: calls of
// tools that declare they change nothing go to it, the rest are refused.
type readOnlyChecker struct{ inner permission.Checker }

func (c readOnlyChecker) Check(ctx context.Context, req permission.Request) (permission.Decision, error) {
	if !req.ReadOnly {
		return permission.Decision{Behavior: permission.Deny, Rule: "mode:explore", Message: req.Tool + " may change things and this sub-agent is read-only"}, nil
	}
	return c.inner.Check(ctx, req)
}

// runGuarded keeps a panicking child from taking the parent down.
func runGuarded(ctx context.Context, rt turn.Runtime, in turn.Input, d turn.Deps) (res event.Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = event.Event{}, fmt.Errorf("internal error in the sub-agent: %v", p)
		}
	}()
	return rt.RunTurn(ctx, in, d)
}

func firstLine(ss ...string) string {
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		line, _, _ := strings.Cut(s, "\n")
		if len(line) > 60 {
			line = line[:60] + "…"
		}
		return line
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
