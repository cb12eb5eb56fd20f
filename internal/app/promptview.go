package app

import (
	"context"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/mcp"
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
	// NoMCP leaves the folder's MCP servers unstarted (their tools and
	// instructions are then not shown).
	NoMCP bool
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
	// MCP are the servers a session would start, as they stood when the
	// request was built (connected, failed, needing approval).
	MCP []mcp.ServerStatus
}

// LeftTool is a tool not offered, and why.
type LeftTool struct{ Name, Reason string }

// PromptView builds the first request a native session in req.Cwd would
// send, without storing a session or calling a provider. The MCP servers
// a session would start (those its policy runs: a project server only
// once approved) are started, waited for as a session waits, and stopped
// again, so their tools and instructions are in it; req.NoMCP skips them.
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
	opts, _, err := a.engineOptions(ctx, s, s.Cwd, hooks.Merge(s.hooks), nil)
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
	var servers []mcp.ServerStatus
	if !req.NoMCP {
		if m := a.previewMCP(ctx, s, reg); m != nil {
			defer m.Close()
			pb.MCP = m.Instructions
			servers = m.Status()
		}
	}
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
		Request: rt.Preview(in, deps, m), Sections: rt.PreviewSections(in, deps, m), MCP: servers}
	for _, t := range reg.List() {
		switch why := tool.UnavailableReason(t, spec); {
		case why != "":
			v.Left = append(v.Left, LeftTool{t.Name(), why})
		case !permission.Offers(engine.Mode(), t):

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
	sk, ag, set := s.ext.skills, s.ext.agents, s.ext.set
	runner := &subagent.Runner{Agents: ag, Skills: sk}
	reg.Add(&agenttools.Agent{Runner: runner, ListingBudget: set.ListingBudget},
		&agenttools.Skill{Catalog: sk, Runner: runner, ListingBudget: set.ListingBudget})
	reg.Alias("Task", "Agent")
	return reg, nil
}

// previewMCP starts the MCP servers a session in s.Cwd would start, with
// their tools going to reg, and waits for them as a session's first turn
// does; nil when there are none. The caller closes it.
func (a *App) previewMCP(ctx context.Context, s *Settings, reg *tool.Registry) *mcp.Manager {
	servers, policy := a.mcpServers(s, nil, false)
	if len(servers) == 0 {
		return nil
	}
	w := &wiring{app: a}
	m := mcp.NewManager(mcp.Options{Servers: servers, Policy: policy, Registry: reg,
		ClientName: "tandem", ClientVersion: firstNonEmpty(a.opts.Version, "dev"), WorkDir: s.Cwd,
		BaseEnv: w.secretPolicy(s.Config).ScrubEnv(os.Environ()), Tokens: mcp.NewTokenStore(a.Paths.DataDir)})
	m.Start(ctx)
	m.WaitReady(ctx, DefaultMCPWait)
	return m
}
