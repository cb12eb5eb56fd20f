package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// ask turns an ask verdict into a decision: dontAsk and a missing asker
// deny; otherwise the asker answers and "allow always" saves its rules.
func (e *Engine) ask(ctx context.Context, mode Mode, req Request, v verdict) (Decision, error) {
	return e.askAt(ctx, mode, req, v, 0)
}

// askAt asks about req; depth counts the rewrites that led to this question.
func (e *Engine) askAt(ctx context.Context, mode Mode, req Request, v verdict, depth int) (Decision, error) {
	in := decodeInput(req.Input)
	q := Question{SessionID: req.SessionID, ToolName: req.Tool, ToolUseID: req.ToolUseID, Input: req.Input,
		Summary: summarize(req.Tool, req.Input, in, e.opts.WorkDir, e.opts.Tools), Reason: v.reason}
	if !v.noAlways && len(v.suggest) > 0 {
		q.Rules = dedupRules(v.suggest)
		names := make([]string, len(q.Rules))
		for i, r := range q.Rules {
			names[i] = r.String()
		}
		q.Suggestion = strings.Join(names, ", ")
	}
	q.Diff = previewDiff(req.Tool, req.Input, e.opts.WorkDir, e.opts.Tools)
	if mode == DontAsk {
		return Decision{Behavior: Deny, Rule: "mode:dontAsk", Message: q.Summary + " needs approval (" + v.reason +
			") and the permission mode is dontAsk, which never asks: " + e.approvers(mode, req, in, q.Rules).message()}, nil
	}
	if d, ok := e.permissionRequestHook(ctx, mode, req, q.Rules); ok {
		return d, nil
	}
	if e.opts.Asker == nil {
		return Decision{Behavior: Deny, Rule: "no-terminal", Message: NoTerminalMessage(q.Summary, e.approvers(mode, req, in, q.Rules)) + " (" + v.reason + ")"}, nil
	}
	e.notify(ctx, req, mode, q.Summary)
	ans, err := e.opts.Asker.Ask(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("ask permission for %s: %w", req.Tool, err)
		}
		return Decision{Behavior: Deny, Rule: "ask-failed", Message: "could not ask for approval: " + err.Error()}, nil
	}
	switch ans.Decision {
	case AllowOnce:
		return e.answeredRewrite(ctx, mode, req, v, Decision{Behavior: Allow, Rule: "user:allow_once", UpdatedInput: ans.UpdatedInput}, depth)
	case AllowAlways:
		e.saveGrants(ctx, ans.Scope, q.Rules)
		return e.answeredRewrite(ctx, mode, req, v, Decision{Behavior: Allow, Rule: "user:allow_always " + q.Suggestion, UpdatedInput: ans.UpdatedInput}, depth)
	}
	msg := "The user denied this call."
	if ans.Message != "" {
		msg += " They said: " + ans.Message
	}
	return Decision{Behavior: Deny, Rule: "user:deny", Message: msg}, nil
}

func (e *Engine) saveGrants(ctx context.Context, scope Scope, rules []Rule) {
	if scope == "" {
		scope = ScopeSession
	}
	for _, r := range rules {
		r.Source = "allow always (" + string(scope) + ")"
		e.AddSessionRule(r)
		if scope == ScopeSession || e.opts.GrantStore == nil {
			continue
		}
		if err := e.opts.GrantStore.AddRule(ctx, scope, r); err != nil {
			e.opts.Emit(event.Event{Type: event.Error, Error: fmt.Sprintf("save permission rule %s for the %s: %v", r, scope, err)})
		}
	}
}

func dedupRules(rs []Rule) []Rule {
	seen := map[string]bool{}
	var out []Rule
	for _, r := range rs {
		if !seen[r.String()] {
			seen[r.String()] = true
			out = append(out, r)
		}
	}
	return out
}

// permissionRequestHook lets PermissionRequest hooks answer an ask before
// anyone is asked (as Claude Code runs them when its dialog would open).
// A rewritten input is judged again, so a hook cannot smuggle a denied
// command past the rules.
func (e *Engine) permissionRequestHook(ctx context.Context, mode Mode, req Request, suggest []Rule) (Decision, bool) {
	if !e.opts.Hooks.Has(hooks.PermissionRequest) {
		return Decision{}, false
	}
	out, err := e.opts.Hooks.Run(ctx, hooks.Input{HookEventName: hooks.PermissionRequest, SessionID: req.SessionID,
		Cwd: req.Cwd, PermissionMode: string(mode), ToolName: req.Tool, ToolInput: req.Input, ToolUseID: req.ToolUseID,
		PermissionSuggestions: permissionSuggestions(suggest)})
	if err == nil && len(out.Errors) > 0 {
		err = errors.New(strings.Join(out.Errors, "; "))
	}
	if err != nil {
		e.opts.Emit(event.Event{Type: event.Error, ToolUseID: req.ToolUseID, Error: "PermissionRequest hook: " + err.Error()})
	}
	switch out.Decision {
	case hooks.DecisionDeny:
		msg := "Denied by a PermissionRequest hook"
		if out.Reason != "" {
			msg += ": " + out.Reason
		}
		return Decision{Behavior: Deny, Rule: "hook:PermissionRequest", Message: msg, Interrupt: out.Interrupt || out.Stop}, true
	case hooks.DecisionAllow:
		e.applyHookUpdates(ctx, req.ToolUseID, out.UpdatedPermissions)
		d := Decision{Behavior: Allow, Rule: "hook:PermissionRequest"}
		if rewritten(req.Input, out.UpdatedInput) {
			// The hook approves what it asks to run, unless that is denied.
			if _, v := e.rejudge(mode, req, out.UpdatedInput); v.action == ActionDeny {
				return rewriteDenied(v), true
			}
			d.UpdatedInput = out.UpdatedInput
		}
		return d, true
	}
	return Decision{}, false
}

// notify runs Notification hooks (permission_prompt) while the question
// waits for its answer; they cannot change it.
func (e *Engine) notify(ctx context.Context, req Request, mode Mode, summary string) {
	if !e.opts.Hooks.Has(hooks.Notification) {
		return
	}
	in := hooks.Input{HookEventName: hooks.Notification, SessionID: req.SessionID, Cwd: req.Cwd, PermissionMode: string(mode),
		NotificationType: hooks.NotifyPermissionPrompt, Title: "Permission needed",
		Message: "tandem needs your permission: " + summary}
	go func() {
		out, err := e.opts.Hooks.Run(context.WithoutCancel(ctx), in)
		if err == nil && len(out.Errors) > 0 {
			err = errors.New(strings.Join(out.Errors, "; "))
		}
		if err != nil {
			e.opts.Emit(event.Event{Type: event.Error, Error: "Notification hook: " + err.Error()})
		}
	}()
}

// permissionSuggestions is what "allow always" would save, in Claude
// Code's permission_suggestions form.
func permissionSuggestions(rules []Rule) json.RawMessage {
	if len(rules) == 0 {
		return nil
	}
	type ruleValue struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent,omitempty"`
	}
	vals := make([]ruleValue, len(rules))
	for i, r := range rules {
		vals[i] = ruleValue{ToolName: r.Permission, RuleContent: r.Pattern}
	}
	raw, _ := json.Marshal([]map[string]any{{"type": "addRules", "rules": vals, "behavior": "allow", "destination": "session"}})
	return raw
}
