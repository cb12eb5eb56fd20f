package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/plugin"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/agenttools"
	"github.com/tandem-agent/tandem/internal/trust"
	"github.com/tandem-agent/tandem/internal/turn"
)

// extensions are a session's skills, commands and agents.
type extensions struct {
	skills *skills.Catalog
	agents *subagent.Catalog
	runner *subagent.Runner
	budget int
	// bridge is the --add-dir folder made for the claude-code runtime
	// (built on its first turn, removed with the session).
	bridgeOnce sync.Once
	bridge     []string
	bridgeErr  error
}

// skillsSettings is the "skills" config section.
type skillsSettings struct {
	ListingBudget int `json:"listing_budget,omitempty"`
}

// Extensions is what a folder offers: skills, commands and agents, with
// the warnings and notices their files produced (for `tandem skills list`
// and the HTTP API, whose shape it is).
type Extensions = listing.Extensions

// ExtensionsFor loads the skills, commands and agents for a working folder.
func (a *App) ExtensionsFor(cwd string) (*Extensions, error) {
	cfg, err := a.ConfigFor(cwd)
	if err != nil {
		return nil, err
	}
	_, trusted, err := a.trustOf(cwd)
	if err != nil {
		return nil, err
	}
	x, err := a.loadExtensions(cfg, cwd, trusted, a.pluginSet())
	if err != nil {
		return nil, err
	}
	return describe(x.skills, x.agents), nil
}

func describe(sk *skills.Catalog, ag *subagent.Catalog) *Extensions {
	return &Extensions{Skills: sk.Skills, Commands: sk.Commands, Agents: ag.Defs, Builtins: skills.BuiltinCommands,
		Notices: append(append([]string(nil), sk.Notices...), ag.Notices...), Warnings: append(append([]skills.Warning(nil), sk.Warnings...), ag.Warnings...)}
}

// loadedExtensions are a folder's skills, commands and agents as loaded
// once for a session start (ResolveSettings keeps them in Settings): the
// trust check reads needs and the session's Skill and Agent tools use the
// catalogs, so each file is read and decoded once for both.
type loadedExtensions struct {
	skills *skills.Catalog
	agents *subagent.Catalog
	set    skillsSettings
	// needs are the project's entries that need trust
	// (extensionFindings), found before an untrusted folder's are gated.
	needs []trust.Finding
}

// loadExtensions loads the skills, commands and agents of cwd; an
// untrusted folder's come without a provider's model (gateModels).
func (a *App) loadExtensions(cfg *config.Config, cwd string, trusted bool, ps *plugin.Set) (*loadedExtensions, error) {
	var set skillsSettings
	if len(cfg.Skills) > 0 {
		if err := json.Unmarshal(cfg.Skills, &set); err != nil {
			return nil, &config.Error{File: cfg.SectionSource("skills"), Field: "skills", Msg: err.Error()}
		}
	}
	home := a.home()
	if !a.userClaudeSettings() {
		home = "" // the host asked for none of the user's Claude Code files
	}
	projectDir := cwd
	if !a.projectFiles() {
		projectDir = "" // the host asked for no project files
	}
	skillPlaces := skills.DefaultPlaces(projectDir, home, a.Paths.ConfigDir)
	// The plugins' come last: a project's or the user's own file of the
	// same name wins (theirs are named plugin:name, so rarely clash).
	skillPlaces.Skills = append(skillPlaces.Skills, ps.SkillPlaces()...)
	skillPlaces.Commands = append(skillPlaces.Commands, ps.CommandPlaces()...)
	sk := skills.Load(skillPlaces)
	// The host's agents first: they win over every file's, as Claude
	// Code's --agents do. Then config agents: the project file's win over
	// the user file's, name by name (a whole-section replace would drop
	// the user's).
	var defs []*subagent.Def
	if a.opts.HostAgents != nil {
		defs = append(defs, a.opts.HostAgents()...)
	}
	seen := map[string]bool{}
	for i := len(cfg.Layers) - 1; i >= 0; i-- {
		layer := cfg.Layers[i]
		ds, err := subagent.ParseConfig(layer.Agents, layer.File)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if !seen[d.Name] {
				seen[d.Name] = true
				defs = append(defs, d)
			}
		}
	}
	userAgents := skills.Place{Scope: skills.ScopeUser}
	if home != "" {
		userAgents.Dir = places.Path(home, places.Home(), places.Agents)
	}
	projectAgents := skills.Place{Scope: skills.ScopeProject, Root: projectDir}
	if projectDir != "" {
		projectAgents.Dir = places.Path(projectDir, places.Project(), places.Agents)
	}
	ag := subagent.Load(defs, append([]skills.Place{projectAgents, userAgents}, ps.AgentPlaces()...)...)
	x := &loadedExtensions{skills: sk, agents: ag, set: set, needs: extensionFindings(sk, ag)}
	if !trusted {
		gateModels(sk, ag)
	}
	return x, nil
}

// equipExtensions loads skills, commands and agents and registers the Skill
// and Agent tools. Bad files are reported as status notices and skipped.
func (w *wiring) equipExtensions(l *session.Live, eq *Equipment, sk *skills.Catalog, ag *subagent.Catalog, set skillsSettings) error {
	var st subagent.Settings
	if len(eq.cfg.Subagents) > 0 {
		if err := json.Unmarshal(eq.cfg.Subagents, &st); err != nil {
			return &config.Error{File: eq.cfg.SectionSource("subagents"), Field: "subagents", Msg: err.Error()}
		}
	}
	child, err := w.childRuntime(eq)
	if err != nil {
		return err
	}
	ext := &extensions{skills: sk, agents: ag, budget: set.ListingBudget}
	ext.runner = &subagent.Runner{Runtime: child, Children: childrenFor(eq.tel, subagent.StoreChildren{Store: w.app.Store}), Agents: ag, Skills: sk, Settings: st,
		ResolveModel: func(field, parent string) string { return resolveAgentModel(field, parent, eq.cfg.SmallModel) },
		Bind:         agenttools.Bind(sk, eq.grants, set.ListingBudget)}
	if eq.hooks != nil {
		ext.runner.Hooks = eq.hookFire
	}
	ext.runner.Isolate = w.isolator(l, eq)
	parent := func(tool.Call) subagent.Parent {
		t := l.Env().State.Turn()
		rec := l.Snapshot()
		return subagent.Parent{SessionID: rec.ID, Cwd: rec.Cwd, Roots: l.Roots(), DataDir: l.Env().DataDir,
			Files: l.Env().Files, Terminal: l.Env().Terminal, Sandbox: l.Env().Sandbox,
			Model: firstNonEmpty(t.Model, rec.Model), Mode: eq.engine.Mode(), Checker: l.Checker(), Tools: l.Tools(),
			AllowedTools: t.AllowedTools, DisallowedTools: t.DisallowedTools, Emit: l.Events().Emit}
	}
	l.Tools().Add(&agenttools.Agent{Runner: ext.runner, Parent: parent, ListingBudget: set.ListingBudget},
		&agenttools.Skill{Catalog: sk, Runner: ext.runner, Parent: parent, Granter: eq.grants, ListingBudget: set.ListingBudget})
	l.Tools().Alias("Task", "Agent")
	eq.ext = ext
	for _, n := range append(append([]string(nil), sk.Notices...), ag.Notices...) {
		l.Events().Emit(event.Event{Type: event.Status, Message: n, Meta: map[string]any{"notice": "extensions"}})
	}
	for _, wn := range append(append([]skills.Warning(nil), sk.Warnings...), ag.Warnings...) {
		l.Events().Emit(event.Event{Type: event.Status, Message: "warning: " + wn.String(), Meta: map[string]any{"notice": "extensions", "file": wn.File}})
		fmt.Fprintf(w.app.opts.Stderr, "tandem: warning: %s\n", wn)
	}
	return nil
}

// childRuntime is the native loop children run in. It runs PostToolUse
// hooks for the child's calls, but not the session's UserPromptSubmit and
// Stop hooks: a child's prompt is not the user's, and its end is
// SubagentStop.
func (w *wiring) childRuntime(eq *Equipment) (turn.Runtime, error) {
	opts, err := w.nativeOptions(eq)
	if err != nil {
		return nil, err
	}
	if opts.Hooks != nil {
		opts.Hooks = childHooks{opts.Hooks}
	}
	return agent.New(opts)
}

// childHooks passes only PostToolUse, PostToolUseFailure and PostToolBatch on.
type childHooks struct{ h agent.HookRunner }

func (c childHooks) UserPromptSubmit(context.Context, string, string, string) (string, string, error) {
	return "", "", nil
}
func (c childHooks) PostToolUse(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, result string) (string, *string, error) {
	return c.h.PostToolUse(ctx, sessionID, cwd, toolName, toolUseID, input, result)
}
func (c childHooks) PostToolBatch(ctx context.Context, sessionID, cwd string, calls []agent.BatchCall) (string, error) {
	return c.h.PostToolBatch(ctx, sessionID, cwd, calls)
}
func (c childHooks) StopFailure(context.Context, string, string, error, string) error { return nil }
func (c childHooks) PostToolUseFailure(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, errText string, interrupted bool) (string, error) {
	return c.h.PostToolUseFailure(ctx, sessionID, cwd, toolName, toolUseID, input, errText, interrupted)
}
func (c childHooks) Stop(context.Context, string, string, bool, string) (string, error) {
	return "", nil
}

// resolveAgentModel maps an agent's or skill's model field to a spec:
// empty or "inherit" keeps the parent's; "fast" and "haiku" use the
// configured small_model when there is one; a bare model id stays with the
// parent's provider.
func resolveAgentModel(field, parent, small string) string {
	f := strings.TrimSpace(field)
	switch strings.ToLower(f) {
	case "", "inherit":
		return parent
	case "fast", "haiku":
		return firstNonEmpty(small, parent)
	case "sonnet", "opus":
		return parent
	}
	if strings.Contains(f, "/") {
		return f
	}
	if prov, _, ok := strings.Cut(parent, "/"); ok {
		return prov + "/" + f
	}
	return f
}

// CheckAgentModel reports whether a host-given agent's model field names
// a model the config in force for cwd reaches, resolved as a sub-agent's
// model is (resolveAgentModel) under a session on parent (empty: the
// configured default). An alias that keeps the parent's model is not
// checked again: the session's own model is checked when it opens.
func (a *App) CheckAgentModel(field, parent, cwd string) error {
	cfg, err := a.ConfigFor(cwd)
	if err != nil {
		return err
	}
	parent = firstNonEmpty(parent, a.DefaultModel(cfg))
	spec := resolveAgentModel(field, parent, cfg.SmallModel)
	if spec == "" || spec == parent {
		return nil
	}
	_, err = a.models.resolver(cfg).Resolve(spec)
	return err
}

// ExpandPrompt implements session.Equipment: `/name args` becomes the
// custom command's (or user-invocable skill's) text; its allowed-tools are
// pre-approved for the turn (skillGrants decides which count), then its
// ! commands run and its @ files are included (inline.go), each judged by
// the permission engine with those grants in force. Every front end's
// turns come through here (session.Live.Run), under either runtime.
func (eq *Equipment) ExpandPrompt(ctx context.Context, prompt string) session.Expansion {
	exp := eq.expandCommand(ctx, prompt)
	exp.Prompt = eq.expandMCPMentions(ctx, exp.Prompt)
	return exp
}

func (eq *Equipment) expandCommand(ctx context.Context, prompt string) session.Expansion {
	if text, ok := eq.expandMCPPrompt(ctx, prompt); ok {
		return session.Expansion{Prompt: text}
	}
	if text, ok := skills.ExpandBuiltin(prompt); ok {
		return session.Expansion{Prompt: text}
	}
	l := eq.l
	if eq.ext == nil {
		return session.Expansion{Prompt: prompt}
	}
	cmd, text, ok := eq.ext.skills.Expand(prompt)
	if !ok {
		return session.Expansion{Prompt: prompt}
	}
	l.Env().State.OnTurnEnd(eq.grants.grantCommand(cmd))
	l.Events().Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("/%s: running the %s %s (%s)", cmd.Name, cmd.Scope, cmd.Kind, cmd.File),
		Meta: map[string]any{"command": cmd.Name}})
	model := ""
	if cmd.Model != "" {
		model = resolveAgentModel(cmd.Model, l.Snapshot().Model, eq.cfg.SmallModel)
	}
	text = eq.expandInline(ctx, cmd, text)
	return session.Expansion{Prompt: text, Model: model}
}

// Extensions returns what the live session offers: the skills, commands
// and agents it loaded when it was equipped.
func (eq *Equipment) Extensions() *Extensions {
	if eq.ext == nil {
		return &Extensions{}
	}
	return describe(eq.ext.skills, eq.ext.agents)
}

// claudeExtras is what the claude-code runtime needs beyond what the CLI
// reads itself (.claude/skills, .claude/agents, .claude/commands of the
// project and the user): tandem's config-defined agents and the host's
// (--agents, the SDK's initialize) for the CLI's initialize,
// and a folder whose .claude/skills links the skills found elsewhere
// (.agents/skills, tandem's folders), passed with --add-dir.
func (w *wiring) claudeExtras(l *session.Live, eq *Equipment) (addDirs []string, agents map[string]any, err error) {
	if eq.ext == nil {
		return nil, nil, nil
	}
	for _, d := range eq.ext.agents.Custom() {
		if d.Scope == skills.ScopeConfig || d.Scope == subagent.ScopeHost {
			if agents == nil {
				agents = map[string]any{}
			}
			agents[d.Name] = d.Config()
		}
	}
	ext := eq.ext
	ext.bridgeOnce.Do(func() { ext.bridge, ext.bridgeErr = w.skillBridge(l, eq) })
	return ext.bridge, agents, ext.bridgeErr
}

// skillBridge links the skills the CLI would not find itself under
// .claude/skills of a per-session folder.
func (w *wiring) skillBridge(l *session.Live, eq *Equipment) ([]string, error) {
	rec := l.Snapshot()
	home := w.app.home()
	own := map[string]bool{filepath.Join(rec.Cwd, ".claude", "skills"): true}
	if home != "" {
		own[filepath.Join(home, ".claude", "skills")] = true
	}
	var extra []*skills.Skill
	for _, s := range eq.ext.skills.Skills {
		// A plugin's skills reach the CLI with the plugin (--plugin-dir,
		// cliPluginDirs), under the same plugin:name.
		if !own[filepath.Dir(s.Dir)] && s.Plugin == "" {
			extra = append(extra, s)
		}
	}
	if len(extra) == 0 {
		return nil, nil
	}
	bridge, err := store.JoinID(filepath.Join(w.app.Paths.DataDir, "claude-skills"), "session", rec.ID)
	if err != nil {
		return nil, fmt.Errorf("prepare skills for claude-code: %w", err)
	}
	dir := filepath.Join(bridge, ".claude", "skills")
	if err := os.RemoveAll(bridge); err != nil {
		return nil, fmt.Errorf("prepare skills for claude-code: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("prepare skills for claude-code: %w", err)
	}
	for _, s := range extra {
		link, err := store.JoinID(dir, "skill", s.Name)
		if err != nil {
			return nil, fmt.Errorf("prepare skill for claude-code: %w", err)
		}
		if err := os.Symlink(s.Dir, link); err != nil {
			return nil, fmt.Errorf("prepare skill %s for claude-code: %w", s.Name, err)
		}
	}
	eq.addExtra(func() { _ = os.RemoveAll(bridge) })
	return []string{bridge}, nil
}
