package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
)

// hookJudge answers a session's prompt and agent hooks (hooks.Judge): a
// prompt hook is one call of the small model (the session's model when no
// small_model is set; the hook's model field overrides both), an agent
// hook a read-only sub-agent (Read, Grep, Glob) on the same models.
type hookJudge struct {
	eq *Equipment
	// runner and checker run agent hooks: their own slots (a hook that
	// fires inside a sub-agent must not wait for that sub-agent's slot), a
	// runtime without hooks and an engine without hooks or anyone to ask
	// in explore mode, so a hook agent's own calls never fire the hooks
	// that started it. nil when the session has no agent hooks.
	runner  *subagent.Runner
	checker permission.Checker
}

// hookAgentTurns bounds an agent hook's steps (Claude Code's 50).
const hookAgentTurns = 50

// equipHookJudge gives the session's hooks their judge; agent hooks get
// their hookless runtime and engine.
func (w *wiring) equipHookJudge(ctx context.Context, eq *Equipment, s *Settings, hookCfg hooks.Config) error {
	j := &hookJudge{eq: eq}
	if hookCfg.HasType(hooks.TypeAgent) {
		opts, err := w.nativeOptions(eq)
		if err != nil {
			return err
		}
		opts.Hooks, opts.CompactHooks = nil, nil
		rt, err := agent.New(opts)
		if err != nil {
			return err
		}
		rec := eq.l.Snapshot()
		eopts, _, err := w.app.engineOptions(ctx, s, rec.Cwd, hookCfg, eq.l.RequestFlagRules())
		if err != nil {
			return err
		}
		eopts.Mode, eopts.Roots, eopts.Tools, eopts.Emit = permission.Explore, eq.l.Roots(), sessionTools(eq.l), eq.l.Events().Emit
		j.checker = permission.NewEngine(eopts)
		j.runner = &subagent.Runner{Runtime: rt, Children: subagent.StoreChildren{Store: w.app.Store},
			ResolveModel: func(field, parent string) string { return resolveAgentModel(field, parent, eq.cfg.SmallModel) }}
	}
	eq.hooks.SetJudge(j)
	return nil
}

// spec is the model a hook asks: its own model field, else the small model,
// else the session's.
func (j *hookJudge) spec(field string) string {
	eq := j.eq
	parent := firstNonEmpty(eq.l.Env().State.Turn().Model, eq.l.Snapshot().Model, eq.w.app.DefaultModel(eq.cfg))
	return resolveAgentModel(firstNonEmpty(field, "fast"), parent, eq.cfg.SmallModel)
}

// Prompt implements hooks.Judge.
func (j *hookJudge) Prompt(ctx context.Context, model, system, prompt string) (string, error) {
	spec := j.spec(model)
	m, err := j.eq.w.app.models.resolver(j.eq.cfg).Resolve(spec)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", spec, err)
	}
	resp, err := m.Provider.Stream(ctx, provider.Request{Model: m.ID, System: []string{system}, MaxTokens: 1024,
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(prompt)}}}},
		func(provider.Delta) {})
	if err != nil {
		return "", err
	}
	return message.Message{Content: resp.Content}.PlainText(), nil
}

// Agent implements hooks.Judge.
func (j *hookJudge) Agent(ctx context.Context, model, system, prompt string) (string, error) {
	if j.runner == nil {
		return "", errors.New("agent hooks are not set up for this session")
	}
	l := j.eq.l
	rec := l.Snapshot()
	def := &subagent.Def{Name: "hook", Description: "agent hook", Prompt: system, Tools: []string{"Read", "Grep", "Glob"},
		PermissionMode: permission.Explore, MaxTurns: hookAgentTurns, Model: firstNonEmpty(model, "fast"), Scope: skills.ScopeBuiltin}
	parent := subagent.Parent{SessionID: rec.ID, Cwd: rec.Cwd, Roots: l.Roots(), DataDir: l.Env().DataDir,
		Files: l.Env().Files, Terminal: l.Env().Terminal, Model: firstNonEmpty(l.Env().State.Turn().Model, rec.Model),
		Mode: permission.Explore, Checker: j.checker, Tools: l.Tools(), Emit: func(event.Event) {}}
	out, err := j.runner.Run(ctx, parent, subagent.Task{Agent: def, Description: "agent hook", Prompt: prompt})
	if err != nil {
		return "", err
	}
	if out.IsError {
		return "", fmt.Errorf("the hook's agent failed: %s", firstNonEmpty(out.Error, out.Subtype))
	}
	return out.Text, nil
}
