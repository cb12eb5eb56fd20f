package app

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tool"
)

// skillChecker is the session's permission engine, plus one duty for turns
// run by the Claude Code CLI, whose Skill tool is the CLI's own: when a
// Skill call of an inline skill is allowed, the skill's allowed-tools (and
// disallowed-tools) hold for the rest of the turn, as tandem's Skill tool
// does under the native runtime. Every other method is the engine's.
type skillChecker struct {
	*permission.Engine
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
	var rules []permission.Rule
	for _, list := range []struct {
		items  []string
		action permission.Action
	}{{sk.AllowedTools, permission.ActionAllow}, {sk.DisallowedTools, permission.ActionDeny}} {
		for _, item := range list.items {
			if r, err := permission.ParseRule(item, list.action); err == nil {
				rules = append(rules, r)
			}
		}
	}
	if len(rules) > 0 {
		c.state.OnTurnEnd(c.Engine.Grant("skill "+sk.Name+" ("+req.ToolUseID+")", rules))
	}
	return d, nil
}
