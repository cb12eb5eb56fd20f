package cliproto

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/permission"
)

// canUseTool answers a permission question of tandem's engine by asking
// the SDK host (its canUseTool callback), as --permission-prompt-tool stdio
// asks.
func (d *driver) canUseTool(ctx context.Context, q permission.Question) (permission.Answer, error) {
	input := q.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	fields := map[string]any{"tool_name": q.ToolName, "display_name": q.ToolName, "input": input,
		"description": q.Summary, "tool_use_id": q.ToolUseID, "permission_suggestions": suggestions(q)}
	if q.Reason != "" {
		fields["decision_reason"] = q.Reason
	}
	raw, err := d.ctl.request(ctx, "can_use_tool", fields)
	if err != nil {
		return permission.Answer{}, err
	}
	var r struct {
		Behavior           string          `json:"behavior"`
		UpdatedInput       json.RawMessage `json:"updatedInput"`
		UpdatedPermissions []struct {
			Type        string `json:"type"`
			Mode        string `json:"mode"`
			Destination string `json:"destination"`
		} `json:"updatedPermissions"`
		Message   string `json:"message"`
		Interrupt bool   `json:"interrupt"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return permission.Answer{}, fmt.Errorf("can_use_tool answer %s: %w", raw, err)
	}
	switch r.Behavior {
	case "allow":
		ans := permission.Answer{Decision: permission.AllowOnce, UpdatedInput: r.UpdatedInput, By: "sdk"}
		if q.Kind == permission.PlanApproval {
			// An approved plan leaves plan mode for Claude Code's
			// "default" unless the host names a mode (setMode).
			ans.Mode = permission.AskEdits
		}
		for _, p := range r.UpdatedPermissions {
			switch p.Type {
			case "addRules", "replaceRules":
				if q.AlwaysOffered() {
					ans.Decision, ans.Scope = permission.AllowAlways, scopeOf(p.Destination)
				}
			case "setMode":
				if m, err := ParseMode(p.Mode); err == nil && !(q.Kind == permission.PlanApproval && m == permission.Explore) {
					ans.Mode = m
					d.setMode(context.WithoutCancel(ctx), m)
				}
			}
		}
		if q.Kind == permission.PlanApproval {
			d.setMode(context.WithoutCancel(ctx), ans.Mode)
			ans.UpdatedInput = nil
		}
		if q.Kind == permission.Elicitation {
			// updatedInput holds the form's values; values that fail
			// the form decline, naming why.
			return permission.ElicitAnswer(q, ans), nil
		}
		return ans, nil
	case "deny":
		if r.Interrupt {
			d.interrupt()
		}
		return permission.Answer{Decision: permission.DenyCall, Message: r.Message, By: "sdk"}, nil
	}
	return permission.Answer{}, fmt.Errorf("can_use_tool answer: behavior %q is not allow or deny", r.Behavior)
}

// suggestions are "allow always" rules in Claude Code's update shape; for
// a plan approval, the mode to work in (acceptEdits, as Claude Code
// suggests it).
func suggestions(q permission.Question) []map[string]any {
	out := []map[string]any{}
	if q.Kind == permission.PlanApproval {
		return append(out, map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"})
	}
	if !q.AlwaysOffered() {
		return out
	}
	rules := make([]map[string]any, 0, len(q.Rules))
	for _, r := range q.Rules {
		rule := map[string]any{"toolName": r.Permission}
		if r.Pattern != "" {
			rule["ruleContent"] = r.Pattern
		}
		rules = append(rules, rule)
	}
	return append(out, map[string]any{"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"})
}

func scopeOf(destination string) permission.Scope {
	switch destination {
	case "userSettings":
		return permission.ScopeUser
	case "projectSettings", "localSettings":
		return permission.ScopeProject
	}
	return permission.ScopeSession
}
