package permission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/event"
)

// hookUpdate is one of Claude Code's permission updates (what its
// permission_suggestions offer and a PermissionRequest hook's
// updatedPermissions answer with).
type hookUpdate struct {
	Type  string `json:"type"`
	Rules []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
	Behavior    string `json:"behavior"`
	Mode        string `json:"mode"`
	Destination string `json:"destination"`
}

// applyHookUpdates applies a PermissionRequest hook's updatedPermissions,
// as Claude Code applies the suggestions a user accepts: addRules adds
// rules for the session (and saves them in the user's or the project's
// grants for the userSettings, projectSettings and localSettings
// destinations); setMode changes the mode, except into trust
// (bypassPermissions), which only the user chooses. Other kinds and bad
// entries are reported and skipped.
func (e *Engine) applyHookUpdates(ctx context.Context, toolUseID string, updates []json.RawMessage) {
	report := func(msg string) {
		e.opts.Emit(event.Event{Type: event.Error, ToolUseID: toolUseID, Error: "PermissionRequest hook: updatedPermissions: " + msg})
	}
	for _, raw := range updates {
		var u hookUpdate
		if err := json.Unmarshal(raw, &u); err != nil {
			report(fmt.Sprintf("%s is not a permission update: %v", raw, err))
			continue
		}
		switch u.Type {
		case "addRules":
			action := Action(u.Behavior)
			if action != ActionAllow && action != ActionAsk && action != ActionDeny {
				report(fmt.Sprintf("addRules behavior %q: use allow, ask or deny", u.Behavior))
				continue
			}
			var rules []Rule
			for _, rv := range u.Rules {
				text := rv.ToolName
				if rv.RuleContent != "" {
					text += "(" + rv.RuleContent + ")"
				}
				r, err := ParseRule(text, action)
				if err != nil {
					report(err.Error())
					continue
				}
				rules = append(rules, r)
			}
			e.saveHookRules(ctx, u.Destination, rules)
		case "setMode":
			m, err := ParseMode(u.Mode)
			switch {
			case err != nil:
				report(err.Error())
			case m == Trust:
				report("a hook cannot switch to " + string(Trust) + " (bypassPermissions): only the user chooses it")
			default:
				e.SetMode(m)
			}
		default:
			report(fmt.Sprintf("%q updates are not supported: use addRules or setMode", u.Type))
		}
	}
}

// saveHookRules adds rules for the session and keeps them where the
// destination says.
func (e *Engine) saveHookRules(ctx context.Context, destination string, rules []Rule) {
	scope := ScopeSession
	switch destination {
	case "userSettings":
		scope = ScopeUser
	case "projectSettings", "localSettings":
		scope = ScopeProject
	}
	for _, r := range rules {
		r.Source = "PermissionRequest hook (" + string(scope) + ")"
		e.AddSessionRule(r)
		if scope == ScopeSession || e.opts.GrantStore == nil {
			continue
		}
		if err := e.opts.GrantStore.AddRule(ctx, scope, r); err != nil {
			e.opts.Emit(event.Event{Type: event.Error, Error: fmt.Sprintf("save permission rule %s for the %s: %v", r, scope, err)})
		}
	}
}
