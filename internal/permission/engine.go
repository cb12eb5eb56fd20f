package permission

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/secretpaths"
	"github.com/tandem-agent/tandem/internal/tool"
)

// EngineOptions configure an Engine. Only WorkDir is required.
type EngineOptions struct {
	Mode Mode // empty: normal
	// Roots are the folders file tools may touch; WorkDir is added when
	// missing (it is the folder relative paths are taken against).
	Roots   []string
	WorkDir string
	HomeDir string
	// Rule layers. All layers are consulted together: deny beats ask beats
	// allow whatever layer each rule is in, so a project file can never
	// loosen what the user layer denies.
	UserRules, ProjectRules, FlagRules []Rule
	// Asker answers questions; nil means there is no one to ask, and a call
	// that needs approval is denied with an explanation.
	Asker Asker
	// Emit receives mode_changed (and error events for grants that could
	// not be saved). The Broker emits permission_request/permission_reply.
	Emit func(event.Event)
	// GrantStore persists "allow always" answers with project or user scope.
	GrantStore GrantStore
	// Hooks runs PreToolUse hooks inside Check; nil: none.
	Hooks *hooks.Runner
	// ProtectedPaths are extra files whose writes always ask (hook scripts;
	// see hooks.Config.ScriptPaths).
	ProtectedPaths []string
	// SecretFiles are tandem's own files that grant access to it (the
	// server token): reading one asks in every mode but trust, as a
	// credential file does, and explore mode cannot read it unasked.
	SecretFiles []string
	// ConfigDir is tandem's configuration folder: its config.json,
	// AGENTS.md, skills, commands and agents are protected
	// (internal/places), as are the home folder's.
	ConfigDir string
	// Tools finds a tool by name for what it declares of itself: the
	// files its calls touch (tool.FileAccessor), whether it is contained
	// (tool.Contained). The session's tools, and the Claude Code CLI's own
	// under the claude-code runtime (claudecode.CLITool), then tandem's
	// built-in ones (internal/tools.Lookup). This package names no tool:
	// nil means no tool reads or writes files and none is contained.
	Tools tool.Lookup
	// ReadRoots are folders outside the workspace that may be read (never
	// written) without asking: the skills' folders.
	ReadRoots []string
	// ChangeMode switches the session's mode when the user approves a plan
	// (the session stores it and calls SetMode); nil: SetMode alone.
	ChangeMode func(ctx context.Context, m Mode) error
	// Sandboxed says Bash commands run inside the OS sandbox
	// (internal/sandbox): see engine_sandbox.go.
	Sandboxed bool
}

// Engine implements Checker with modes, rules, the shell validator, the
// workspace boundary, hooks and asking.
type Engine struct {
	opts  EngineOptions
	roots []string
	// gitPrograms are the protected places of the roots' common git
	// folders when they are linked worktrees (linkedGitPrograms).
	gitPrograms []string
	// *engineState is shared with the engine's views (Rooted): one mode
	// and one set of session rules however many workspaces are judged.
	*engineState
}

// engineState is what changes while a session runs.
type engineState struct {
	mu      sync.Mutex
	mode    Mode
	session []Rule
}

// NewEngine returns an engine.
func NewEngine(opts EngineOptions) *Engine {
	if opts.Mode == "" {
		opts.Mode = Normal
	}
	if opts.Emit == nil {
		opts.Emit = func(event.Event) {}
	}
	// Resolved once here: every file tool call and shell argument is
	// compared with them.
	opts.SecretFiles = secretpaths.Canonical(opts.SecretFiles)
	roots := []string{opts.WorkDir}
	for _, r := range opts.Roots {
		if r != "" && r != opts.WorkDir {
			roots = append(roots, r)
		}
	}
	return &Engine{opts: opts, roots: roots, gitPrograms: linkedGitPrograms(roots), engineState: &engineState{mode: opts.Mode}}
}

// Mode returns the current mode.
func (e *Engine) Mode() Mode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mode
}

// SetMode changes the mode and emits mode_changed.
func (e *Engine) SetMode(m Mode) {
	e.mu.Lock()
	prev := e.mode
	e.mode = m
	e.mu.Unlock()
	if prev != m {
		e.opts.Emit(event.Event{Type: event.ModeChanged, Mode: string(m), PreviousMode: string(prev)})
	}
}

func (e *Engine) changeMode(ctx context.Context, m Mode) {
	if e.opts.ChangeMode == nil {
		e.SetMode(m)
		return
	}
	if err := e.opts.ChangeMode(context.WithoutCancel(ctx), m); err != nil {
		e.SetMode(m) // in force for this session even when it could not be stored
		e.opts.Emit(event.Event{Type: event.Error, Error: fmt.Sprintf("store the mode %s the approved plan chose: %v", m, err)})
	}
}

// AddSessionRule adds a rule for the rest of the session (in memory).
func (e *Engine) AddSessionRule(r Rule) {
	if r.Source == "" {
		r.Source = "session"
	}
	e.mu.Lock()
	e.session = append(e.session, r)
	e.mu.Unlock()
}

// Roots returns the workspace roots (WorkDir first).
func (e *Engine) Roots() []string { return append([]string(nil), e.roots...) }

// Rules returns every rule of every layer, user layer first.
func (e *Engine) Rules() []Rule {
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []Rule
	for _, layer := range []struct {
		rules []Rule
		name  string
	}{{e.opts.UserRules, "user"}, {e.opts.ProjectRules, "project"}, {e.opts.FlagRules, "flag"}, {e.session, "session"}} {
		for _, r := range layer.rules {
			if r.Source == "" {
				r.Source = layer.name
			}
			all = append(all, r)
		}
	}
	return all
}

// strongest returns the strongest rule for which match is true.
func (e *Engine) strongest(match func(Rule) bool) (Rule, bool) {
	var best Rule
	found := false
	for _, r := range e.Rules() {
		if match(r) && (!found || r.Action.strength() > best.Action.strength()) {
			best, found = r, true
		}
	}
	return best, found
}

// verdict is the engine's judgement before asking.
type verdict struct {
	action   Action
	reason   string
	rule     string
	suggest  []Rule
	noAlways bool
	// exploreAsks: explore mode asks this question rather than refusing
	// (a WebFetch to a host not yet allowed, as Claude Code asks per
	// domain).
	exploreAsks bool
	// firm: the question stands even when the command runs in the OS
	// sandbox (an ask rule, a protected path).
	firm bool
}

func (v *verdict) raise(o verdict) {
	// An allow names the rule that allowed a part, if any did: the rest
	// were read-only.
	if o.action.strength() > v.action.strength() || (o.action == ActionAllow && v.action == ActionAllow && v.rule == "") {
		v.action, v.reason, v.rule = o.action, o.reason, o.rule
	}
	if o.action == ActionAsk {
		v.firm = v.firm || o.firm
		v.suggest = append(v.suggest, o.suggest...)
		v.noAlways = v.noAlways || o.noAlways || len(o.suggest) == 0
		if v.reason == "" {
			v.reason = o.reason
		}
	}
}

func ruleLabel(r Rule) string {
	return fmt.Sprintf("%s (%s)", r.String(), r.Source)
}

// Check judges one call; asking happens here and blocks.
func (e *Engine) Check(ctx context.Context, req Request) (Decision, error) {
	d, err := e.check(ctx, e.Mode(), req)
	if err == nil && d.Behavior == Allow && req.Interaction == PlanApproval && d.Mode != "" {
		// The session's own engine leaves plan mode; a sub-agent's narrowed
		// view never does.
		e.changeMode(ctx, d.Mode)
	}
	return d, err
}

func (e *Engine) check(ctx context.Context, mode Mode, req Request) (Decision, error) {
	input := req.Input
	hookDecision := ""
	if e.opts.Hooks.Has(hooks.PreToolUse) {
		out, err := e.opts.Hooks.PreToolUse(ctx, hooks.Input{SessionID: req.SessionID, Cwd: req.Cwd,
			PermissionMode: string(mode), ToolName: req.Tool, ToolInput: req.Input, ToolUseID: req.ToolUseID})
		if err != nil {
			return Decision{}, fmt.Errorf("run PreToolUse hooks for %s: %w", req.Tool, err)
		}
		if out.Stop {
			return Decision{Behavior: Deny, Rule: "hook", Interrupt: true,
				Message: "A PreToolUse hook stopped the turn: " + cmp.Or(out.StopReason, out.Reason, "no reason given")}, nil
		}
		if out.Decision == hooks.DecisionDeny {
			return Decision{Behavior: Deny, Rule: "hook", Message: "Blocked by a PreToolUse hook: " + out.Reason}, nil
		}
		hookDecision = out.Decision
		if len(out.UpdatedInput) > 0 {
			input = out.UpdatedInput
		}
	}
	if req.Interaction != "" {
		req.Input = input
		return e.interact(ctx, mode, req)
	}
	original := req.Input
	req, v := e.rejudge(mode, req, input)
	if v.action == ActionDeny && rewritten(original, input) {
		return rewriteDenied(v), nil
	}
	switch {
	case hookDecision == hooks.DecisionAllow && v.action == ActionAsk:
		v = verdict{action: ActionAllow, rule: "hook"}
	case hookDecision == hooks.DecisionAsk && v.action == ActionAllow:
		v = verdict{action: ActionAsk, reason: "a PreToolUse hook asks for confirmation", noAlways: true}
	}
	if mode == Explore && v.action == ActionAsk && !v.exploreAsks {
		v = verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode is read-only and never asks: " + v.reason}
	}
	var updated json.RawMessage
	if rewritten(original, input) {
		updated = input
	}
	switch v.action {
	case ActionDeny:
		return Decision{Behavior: Deny, Message: v.reason, Rule: v.rule}, nil
	case ActionAsk:
		d, err := e.ask(ctx, mode, req, v)
		if d.Behavior == Allow && len(updated) > 0 && len(d.UpdatedInput) == 0 {
			d.UpdatedInput = updated
		}
		return d, err
	}
	rule := v.rule
	if rule == "" {
		rule = "mode:" + string(mode)
	}
	return Decision{Behavior: Allow, Rule: rule, UpdatedInput: updated}, nil
}

func (e *Engine) judge(mode Mode, req Request) verdict {
	in := decodeInput(req.Input)
	cwd := req.Cwd
	if cwd == "" {
		cwd = e.opts.WorkDir
	}
	if req.Tool == "Bash" {
		return e.sandboxed(mode, e.judgeBash(mode, in.Command, cwd), in.DisableSandbox)
	}
	if acc, ok := e.fileTool(req.Tool); ok {
		accesses, err := acc.FileAccess(req.Input)
		if err != nil {
			return verdict{action: ActionAsk, reason: "the paths of this " + req.Tool + " call could not be read: " + err.Error(), noAlways: true}
		}
		return e.judgeFiles(mode, req.Tool, accesses)
	}
	if req.Tool == "WebFetch" {
		return e.judgeByRules(req.Tool, func(r Rule) bool { return matchURL(r.Pattern, in.URL) }, fetchDefault(mode, in.URL))
	}
	onlyTool := func(r Rule) bool { return r.Pattern == "" }
	if name, ok := invokedName(req.Tool, in); ok {
		// Skill(pdf) and Agent(Explore) rules name what is invoked, as in
		// Claude Code; the invoked work is judged call by call.
		return e.judgeByRules(req.Tool, func(r Rule) bool { return r.Pattern == "" || r.Pattern == name }, verdict{action: ActionAllow})
	}
	if e.contained(req.Tool) {
		return e.judgeByRules(req.Tool, onlyTool, verdict{action: ActionAllow})
	}
	// MCP and unknown tools.
	def := verdict{action: ActionAllow}
	switch {
	case mode == Trust, req.ReadOnly, e.readOnly(req.Tool):
	case mode == Explore:
		def = verdict{action: ActionDeny, rule: "mode:explore", reason: req.Tool + " may change things and explore mode is read-only"}
	default:
		def = verdict{action: ActionAsk, reason: req.Tool + " is not known to be read-only",
			suggest: []Rule{{Permission: req.Tool, Action: ActionAllow}}}
	}
	return e.judgeByRules(req.Tool, onlyTool, def)
}

// judgeByRules applies the strongest matching rule, else def.
func (e *Engine) judgeByRules(tool string, match func(Rule) bool, def verdict) verdict {
	r, ok := e.strongest(func(r Rule) bool { return r.matchesTool(tool, e.opts.Tools) && match(r) })
	if !ok {
		return def
	}
	switch r.Action {
	case ActionDeny:
		return verdict{action: ActionDeny, rule: r.String(), reason: "denied by rule " + ruleLabel(r)}
	case ActionAsk:
		return verdict{action: ActionAsk, rule: r.String(), reason: "rule " + ruleLabel(r) + " asks", noAlways: true}
	}
	if def.action == ActionDeny && def.rule == "mode:explore" {
		return def // allow rules do not make explore mode write
	}
	return verdict{action: ActionAllow, rule: r.String()}
}
