// Package agenttools holds the tools that start or load more of the agent:
// Agent (a sub-agent, Claude Code's Agent/Task tool) and Skill (a skill's
// instructions, or a `context: fork` skill run as a sub-agent).
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

//go:embed agent.md
var agentDescription string

// ParentFunc returns the context a call's sub-agent starts from.
type ParentFunc func(call tool.Call) subagent.Parent

// Agent is the sub-agent tool.
type Agent struct {
	Runner *subagent.Runner
	Parent ParentFunc
	// ListingBudget bounds the agent list in the description (characters).
	ListingBudget int
}

type agentInput struct {
	Description     string `json:"description"`
	Prompt          string `json:"prompt"`
	SubagentType    string `json:"subagent_type,omitempty"`
	Model           string `json:"model,omitempty"`
	RunInBackground bool   `json:"run_in_background,omitempty"`
	Isolation       string `json:"isolation,omitempty"`
}

// Name is Claude Code's current name; "Task" is accepted as an alias (see
// tool.Registry.Alias).
func (a *Agent) Name() string { return "Agent" }

// ReadOnly: the call itself changes nothing; every call the sub-agent makes
// goes through the permission checker on its own. Being read-only lets
// several Agent calls of one message run in parallel.
func (a *Agent) ReadOnly() bool { return true }

func (a *Agent) Description() string {
	var entries []skills.Entry
	for _, d := range a.Runner.Agents.Defs {
		text := d.Description
		if len(d.Tools) > 0 {
			text += " (Tools: " + strings.Join(d.Tools, ", ") + ")"
		} else {
			text += " (Tools: all of yours)"
		}
		entries = append(entries, skills.Entry{Name: d.Name, Text: text})
	}
	return agentDescription + skills.Listing(entries, a.ListingBudget)
}

func (a *Agent) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"description":{"type":"string","description":"A short (3-5 word) description of the task"},` +
		`"prompt":{"type":"string","description":"The task for the agent to perform"},` +
		`"subagent_type":{"type":"string","description":"The type of specialized agent to use for this task"},` +
		`"model":{"type":"string","description":"Optional model for this agent: a provider/model id or an alias that tandem models lists; omitted, the agent definition's model or yours"},` +
		`"isolation":{"type":"string","enum":["worktree"],"description":"\"worktree\" runs the agent in its own git worktree of the repository: its changes stay on a branch of their own for the user to review, and a worktree it leaves unchanged is removed"},` +
		`"run_in_background":{"type":"boolean","description":"Run the agent in the background: you get its task id at once and its report in a later message when it finishes"}},` +
		`"required":["description","prompt"],"additionalProperties":true}`)
}

func (a *Agent) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in agentInput
	if err := tool.DecodeInput(call.Name, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.ErrorResult("prompt is empty: say what the agent should do and what to report back"), nil
	}
	if err := subagent.CheckIsolation(in.Isolation); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	def := a.Runner.Agents.Get(in.SubagentType)
	if def == nil {
		return tool.ErrorResult(fmt.Sprintf("Agent type %q not found. Available agents: %s", in.SubagentType, strings.Join(a.Runner.Agents.Names(), ", "))), nil
	}
	p := a.Parent(call)
	task := subagent.Task{Agent: def, Description: in.Description, Prompt: in.Prompt, ToolUseID: call.ID, Model: in.Model, Isolation: in.Isolation}
	if in.RunInBackground && canBackground(call, p) {
		return a.background(ctx, call, p, task), nil
	}
	res, err := runTask(ctx, a.Runner, p, task)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if in.RunInBackground {
		res.Content += "\n\n(Note: the agent ran in the foreground: a sub-agent's own agents cannot outlive it, so its report is complete above.)"
	}
	return res, nil
}

// runTask runs a sub-agent and turns its outcome into the tool's result.
func runTask(ctx context.Context, r *subagent.Runner, p subagent.Parent, t subagent.Task) (tool.Result, error) {
	out, err := r.Run(ctx, p, t)
	if err != nil {
		return tool.Result{}, err
	}
	u := out.Usage
	res := tool.Result{Content: out.Text, Usage: &u, CostUSD: out.CostUSD, CostUnknown: out.CostUSD == nil,
		Meta: map[string]any{"agent_type": t.Agent.Name, "agent_session_id": out.SessionID, "subtype": out.Subtype}}
	if out.IsError {
		res.IsError = true
		msg := out.Error
		if msg == "" {
			msg = out.Subtype
		}
		res.Content = fmt.Sprintf("The %s agent did not finish: %s", t.Agent.Name, msg)
		if out.Text != "" {
			res.Content += "\n\nIts last message:\n" + out.Text
		}
	} else if strings.TrimSpace(res.Content) == "" {
		res.Content = "(the agent finished without a report)"
	}
	if out.Worktree != "" {
		res.Content += "\n\n" + out.Worktree
		res.Meta["worktree"] = out.Worktree
	}
	return res, nil
}
