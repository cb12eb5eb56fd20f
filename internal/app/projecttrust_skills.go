package app

import (
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/trust"
)

const whySkillTools = "pre-approves tools while the skill or command runs"

// skillFindings are the project's skills and commands that pre-approve
// tools (allowed-tools): like a project allow rule, only a trusted folder
// may. Their instructions themselves are text, read in any folder, as
// AGENTS.md is.
func skillFindings(cwd string) []trust.Finding {
	places := skills.DefaultPlaces(cwd, "", "")
	cat := skills.Load(places)
	var out []trust.Finding
	for _, c := range cat.Commands {
		if c.Scope == skills.ScopeProject && len(c.AllowedTools) > 0 {
			out = append(out, trust.Finding{File: c.File, Key: "allowed-tools", Why: whySkillTools})
		}
	}
	for _, s := range cat.Skills {
		if s.Scope == skills.ScopeProject && !s.UserInvocable && len(s.AllowedTools) > 0 {
			out = append(out, trust.Finding{File: s.File, Key: "allowed-tools", Why: whySkillTools})
		}
	}
	return out
}
