package agenttools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed skill.md
var skillDescription string

// Granter pre-approves a skill's allowed-tools (and refuses its
// disallowed-tools) while it runs. The application implements it, deciding
// there whether the skill's file may pre-approve anything (a project's
// only in a trusted folder).
type Granter interface {
	GrantSkill(sk *skills.Skill, callID string) (revoke func())
}

// Skill is Claude Code's Skill tool: it loads a skill's instructions into
// the conversation (progressive disclosure: the model sees only names and
// descriptions until it asks), or runs a `context: fork` skill as a
// sub-agent.
type Skill struct {
	Catalog *skills.Catalog
	Runner  *subagent.Runner
	Parent  ParentFunc
	// Granter pre-approves a skill's allowed-tools while it runs; nil
	// means no pre-approval (every call is judged as usual).
	Granter       Granter
	ListingBudget int
}

type skillInput struct {
	Skill string `json:"skill"`
	Args  string `json:"args,omitempty"`
}

func (s *Skill) Name() string { return "Skill" }

// ReadOnly: loading instructions changes nothing; a fork skill's own calls
// are each judged by the permission checker.
func (s *Skill) ReadOnly() bool { return true }

func (s *Skill) Description() string {
	list := skills.Listing(skills.SkillEntries(s.Catalog.ModelSkills()), s.ListingBudget)
	if list == "" {
		list = "(none)"
	}
	return skillDescription + list
}

// Unavailable implements tool.Availability: with no skill the model may
// invoke, the tool could only fail, so it is not offered.
func (s *Skill) Unavailable(string) string {
	if len(s.Catalog.ModelSkills()) == 0 {
		return "no skills are installed (see docs/skills.md)"
	}
	return ""
}

func (s *Skill) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"skill":{"type":"string","description":"The skill name, e.g. \"pdf\""},` +
		`"args":{"type":"string","description":"Optional arguments for the skill"}},` +
		`"required":["skill"],"additionalProperties":false}`)
}

func (s *Skill) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in skillInput
	if err := tool.DecodeInput(call.Name, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(call.Name, "skill", in.Skill); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	sk := s.Catalog.Skill(in.Skill)
	if sk == nil || !sk.ModelVisible() {
		var names []string
		for _, m := range s.Catalog.ModelSkills() {
			names = append(names, m.Name)
		}
		why := "Unknown skill"
		if sk != nil {
			why = "The skill can only be run by the user (disable-model-invocation)"
		}
		return tool.ErrorResult(fmt.Sprintf("%s: %q. Available skills: %s", why, in.Skill, strings.Join(names, ", "))), nil
	}
	revoke := s.grant(sk, call.ID)
	if sk.Context == skills.ContextFork {
		defer revoke()
		return s.fork(ctx, call, sk, in.Args)
	}
	// An inline skill's tools stay pre-approved for the rest of the turn,
	// as in Claude Code.
	if call.Env != nil && call.Env.State != nil {
		call.Env.State.OnTurnEnd(revoke)
	} else {
		revoke()
	}
	meta := map[string]any{"skill": sk.Name, "skill_dir": sk.Dir}
	if len(sk.AllowedTools) > 0 {
		meta["allowed_tools"] = sk.AllowedTools
	}
	return tool.Result{Content: sk.Prompt(in.Args), Meta: meta}, nil
}

// grant pre-approves the skill's allowed-tools and refuses its
// disallowed-tools until revoke.
func (s *Skill) grant(sk *skills.Skill, callID string) (revoke func()) {
	if s.Granter == nil || (len(sk.AllowedTools) == 0 && len(sk.DisallowedTools) == 0) {
		return func() {}
	}
	return s.Granter.GrantSkill(sk, callID)
}

func (s *Skill) fork(ctx context.Context, call tool.Call, sk *skills.Skill, args string) (tool.Result, error) {
	if s.Runner == nil {
		return tool.ErrorResult("this skill runs as a sub-agent (context: fork), and sub-agents are not available here"), nil
	}
	base := s.Runner.Agents.Get(sk.Agent)
	if base == nil {
		return tool.ErrorResult(fmt.Sprintf("skill %q names agent %q, which does not exist (agents: %s)", sk.Name, sk.Agent, strings.Join(s.Runner.Agents.Names(), ", "))), nil
	}
	def := *base
	def.DisallowedTools = append(append([]string(nil), base.DisallowedTools...), sk.DisallowedTools...)
	res, err := runTask(ctx, s.Runner, s.Parent(call), subagent.Task{Agent: &def, Description: "skill " + sk.Name,
		Prompt: sk.Prompt(args), ToolUseID: call.ID, Model: sk.Model, Effort: sk.Effort})
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	res.Meta["skill"] = sk.Name
	return res, nil
}

// Bind returns the Agent and Skill tools acting for p: what a sub-agent
// gets in place of its parent's (subagent.Runner.Bind).
func Bind(cat *skills.Catalog, granter Granter, budget int) func(r *subagent.Runner, p subagent.Parent) []tool.Tool {
	return func(r *subagent.Runner, p subagent.Parent) []tool.Tool {
		parent := func(tool.Call) subagent.Parent { return p }
		return []tool.Tool{
			&Agent{Runner: r, Parent: parent, ListingBudget: budget},
			&Skill{Catalog: cat, Runner: r, Parent: parent, Granter: granter, ListingBudget: budget},
		}
	}
}
