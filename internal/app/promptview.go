package app

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/tools/agenttools"
	"github.com/tandem-agent/tandem/internal/turn"
)

// PromptViewRequest names the session whose first request to show.
type PromptViewRequest struct {
	Cwd   string
	Model string // "" : the folder's
	Mode  string // "" : the folder's
	// NoAsker shows the request of a run with nobody to answer
	// (`tandem run -p`).
	NoAsker bool
	// Prompt is the user's message in the request; "" shows a placeholder.
	Prompt string
}

// PromptView is what the native runtime would send first for a session:
// the system prompt by section and the request as built by the loop
// itself (agent.Runtime.Preview), so it cannot drift from what is sent.
type PromptView struct {
	Model    string // provider/model
	Family   prompt.Family
	Mode     permission.Mode
	NoAsker  bool
	Sections []prompt.Section
	Request  provider.Request
	// Left are the registered tools left out of the request, with why.
	Left []LeftTool
}

// LeftTool is a tool not offered, and why.
type LeftTool struct{ Name, Reason string }

// PromptView builds the first request a native session in req.Cwd would
// send, without storing a session, starting MCP servers or calling a
// provider. MCP servers' tools are not in it: they are known only once the
// servers run.
func (a *App) PromptView(ctx context.Context, req PromptViewRequest) (*PromptView, error) {
	s, err := a.ResolveSettings(ctx, SettingsRequest{Cwd: req.Cwd, Model: req.Model, Mode: req.Mode})
	if err != nil {
		return nil, err
	}
	if s.Model == "" {
		return nil, fmt.Errorf("no model is set for %s: pass --model provider/model or set one (tandem models lists them)", s.Cwd)
	}
	res, err := a.Catalog.Resolve(s.Model)
	if err != nil {
		return nil, err
	}
	spec := res.Provider + "/" + res.Model
	opts, _, err := a.engineOptions(ctx, s, s.Cwd, hooks.Merge(s.hooks))
	if err != nil {
		return nil, fmt.Errorf("permission rules for %s: %w", s.Cwd, err)
	}
	if !req.NoAsker {
		opts.Asker = permission.AskerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
			return permission.Answer{}, fmt.Errorf("a preview asks nothing")
		})
	}
	engine := permission.NewEngine(opts)
	reg, err := a.previewTools(s, spec)
	if err != nil {
		return nil, err
	}
	w := &wiring{app: a}
	pb := prompt.Builder{ConfigDir: a.Paths.ConfigDir, Home: a.opts.Getenv("HOME"), Warn: a.opts.Stderr}
	rt, err := agent.New(agent.Options{Models: w.app.models.resolver(s.Config), Prompt: pb})
	if err != nil {
		return nil, err
	}
	text := req.Prompt
	if text == "" {
		text = "(your prompt)"
	}
	in := turn.Input{Cwd: s.Cwd, Roots: []string{s.Cwd}, Model: spec, Mode: engine.Mode(), Prompt: text}
	deps := turn.Deps{Checker: engine, Tools: reg, Env: tool.NewEnv("preview", s.Cwd, nil, a.Paths.DataDir)}
	m := agent.Model{ID: res.Model}
	v := &PromptView{Model: spec, Family: prompt.FamilyOf(res.Model), Mode: engine.Mode(), NoAsker: req.NoAsker,
		Request: rt.Preview(in, deps, m), Sections: rt.PreviewSections(in, deps, m)}
	for _, t := range reg.List() {
		switch why := tool.UnavailableReason(t, spec); {
		case why != "":
			v.Left = append(v.Left, LeftTool{t.Name(), why})
		case !engine.Mode().Offers(t.Name(), tool.IsReadOnly(t)):
			v.Left = append(v.Left, LeftTool{t.Name(), fmt.Sprintf("cannot work in %s mode", engine.Mode())})
		}
	}
	return v, nil
}

// previewTools is the registry a session would start with: the built-in
// tools and the Agent and Skill tools (MCP servers' tools come later).
func (a *App) previewTools(s *Settings, spec string) (*tool.Registry, error) {
	w := &wiring{app: a}
	reg := tool.NewRegistry(tools.Default(w.toolOptions(s.Config, func() string { return spec }, s.Sandbox.On()))...)
	sk, ag, set, err := a.loadExtensions(s.Config, s.Cwd, s.Trusted)
	if err != nil {
		return nil, err
	}
	runner := &subagent.Runner{Agents: ag, Skills: sk}
	reg.Add(&agenttools.Agent{Runner: runner, ListingBudget: set.ListingBudget},
		&agenttools.Skill{Catalog: sk, Runner: runner, ListingBudget: set.ListingBudget})
	reg.Alias("Task", "Agent")
	return reg, nil
}
