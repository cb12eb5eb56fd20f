package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/trust"
)

// skillGrants is the one place a skill's or command's allowed-tools become
// pre-approvals, for every way one runs: the Skill tool (native runtime and
// sub-agents), a /command prompt, the Claude Code CLI's Skill tool. The
// trust check sits here, where the grant is applied: a project file's
// allowed-tools are granted only in a trusted folder, whatever the file's
// name (reserved command names included) or way of loading; its
// disallowed-tools always hold. Left out, the skill still runs and its
// tools are judged as usual.
type skillGrants struct {
	engine  *permission.Engine
	trusted bool
}

// rules are what a skill or command of scope grants while it runs.
func (g skillGrants) rules(scope skills.Scope, allowed, disallowed []string) []permission.Rule {
	var rules []permission.Rule
	if g.runsCommands(scope) {
		for _, item := range allowed {
			if r, err := permission.ParseRule(item, permission.ActionAllow); err == nil {
				rules = append(rules, r)
			}
		}
	}
	for _, item := range disallowed {
		if r, err := permission.ParseRule(item, permission.ActionDeny); err == nil {
			rules = append(rules, r)
		}
	}
	return rules
}

// runsCommands says whether a skill or command of scope may run commands
// of its own (a /command's ! lines): a project's only in a trusted folder.
func (g skillGrants) runsCommands(scope skills.Scope) bool {
	return g.trusted || scope != skills.ScopeProject
}

// GrantSkill implements agenttools.Granter.
func (g skillGrants) GrantSkill(sk *skills.Skill, callID string) (revoke func()) {
	rules := g.rules(sk.Scope, sk.AllowedTools, sk.DisallowedTools)
	if len(rules) == 0 {
		return func() {}
	}
	return g.engine.Grant("skill "+sk.Name+" ("+callID+")", rules)
}

// grantCommand pre-approves a /command's allowed-tools for its turn.
func (g skillGrants) grantCommand(cmd *skills.Command) (revoke func()) {
	rules := g.rules(cmd.Scope, cmd.AllowedTools, nil)
	if len(rules) == 0 {
		return func() {}
	}
	return g.engine.Grant("command /"+cmd.Name, rules)
}

// skillChecker is the session's permission engine, plus one duty for turns
// run by the Claude Code CLI, whose Skill tool is the CLI's own: when a
// Skill call of an inline skill is allowed, the skill's grants (see
// skillGrants) hold for the rest of the turn, as tandem's Skill tool does
// under the native runtime. Every other method is the engine's.
type skillChecker struct {
	*permission.Engine
	grants  skillGrants
	catalog *skills.Catalog
	state   *tool.State
	// cli is true while a claude-code turn runs.
	cli atomic.Bool
}

func (c *skillChecker) Check(ctx context.Context, req permission.Request) (permission.Decision, error) {
	d, err := c.Engine.Check(ctx, req)
	if err != nil || d.Behavior != permission.Allow || req.Tool != "Skill" || !c.cli.Load() {
		return d, err
	}
	var in struct {
		Skill string `json:"skill"`
	}
	_ = json.Unmarshal(req.Input, &in)
	sk := c.catalog.Skill(in.Skill)
	if sk == nil || sk.Context == skills.ContextFork {
		return d, nil
	}
	c.state.OnTurnEnd(c.grants.GrantSkill(sk, req.ToolUseID))
	return d, nil
}

const (
	whySkillTools = "pre-approves tools while the skill or command runs"
	whyModel      = "names a provider's model, which could send the conversation to another provider"
)

// gateModels keeps an untrusted folder's skills, commands and agents on
// the session's provider: a project file's `model: provider/model` is left
// out (the parent's model is used), a bare id or alias stays. The
// catalogs are the session's own, loaded for it.
func gateModels(sk *skills.Catalog, ag *subagent.Catalog) {
	for _, s := range sk.Skills {
		if s.Scope == skills.ScopeProject && strings.Contains(s.Model, "/") {
			s.Model = ""
		}
	}
	for _, c := range sk.Commands {
		if c.Scope == skills.ScopeProject && strings.Contains(c.Model, "/") {
			c.Model = ""
		}
	}
	for _, d := range ag.Defs {
		if d.Scope == skills.ScopeProject && strings.Contains(d.Model, "/") {
			d.Model = ""
		}
	}
}

// extensionFindings are the project's skills, commands and agents that set
// what an untrusted folder leaves out: allowed-tools (like a project allow
// rule) and a provider's model. Their instructions are text, read in any
// folder, as AGENTS.md is.
func extensionFindings(sk *skills.Catalog, ag *subagent.Catalog) []trust.Finding {
	var out []trust.Finding
	seen := map[string]bool{}
	add := func(file, key, why string) {
		if !seen[file+"\x00"+key] {
			seen[file+"\x00"+key] = true
			out = append(out, trust.Finding{File: file, Key: key, Why: why})
		}
	}
	for _, c := range sk.Commands {
		if c.Scope == skills.ScopeProject && len(c.AllowedTools) > 0 {
			add(c.File, "allowed-tools", whySkillTools)
		}
		if c.Scope == skills.ScopeProject && strings.Contains(c.Model, "/") {
			add(c.File, "model", whyModel)
		}
	}
	for _, s := range sk.Skills {
		if s.Scope == skills.ScopeProject && len(s.AllowedTools) > 0 {
			add(s.File, "allowed-tools", whySkillTools)
		}
		if s.Scope == skills.ScopeProject && strings.Contains(s.Model, "/") {
			add(s.File, "model", whyModel)
		}
	}
	for _, d := range ag.Defs {
		if d.Scope == skills.ScopeProject && strings.Contains(d.Model, "/") {
			add(d.File, "model", whyModel)
		}
	}
	return out
}
