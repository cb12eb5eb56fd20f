package permission

import (
	"context"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
)

// ask turns an ask verdict into a decision: dontAsk and a missing asker
// deny; otherwise the asker answers and "allow always" saves its rules.
func (e *Engine) ask(ctx context.Context, mode Mode, req Request, v verdict) (Decision, error) {
	in := decodeInput(req.Input)
	q := Question{SessionID: req.SessionID, ToolName: req.Tool, ToolUseID: req.ToolUseID, Input: req.Input,
		Summary: summarize(req.Tool, in, e.opts.WorkDir), Reason: v.reason}
	if !v.noAlways && len(v.suggest) > 0 {
		q.Rules = dedupRules(v.suggest)
		names := make([]string, len(q.Rules))
		for i, r := range q.Rules {
			names[i] = r.String()
		}
		q.Suggestion = strings.Join(names, ", ")
	}
	if fileEditTools[req.Tool] {
		q.Diff = previewDiff(req.Tool, in)
	}
	if mode == DontAsk {
		return Decision{Behavior: Deny, Rule: "mode:dontAsk", Message: q.Summary + " needs approval (" + v.reason +
			") and the permission mode is dontAsk: add an allow rule for it or change the mode"}, nil
	}
	if e.opts.Asker == nil {
		return Decision{Behavior: Deny, Rule: "no-terminal", Message: NoTerminalMessage(q.Summary, noTerminalAllow(req.Tool, in, q.Rules)) + " (" + v.reason + ")"}, nil
	}
	ans, err := e.opts.Asker.Ask(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("ask permission for %s: %w", req.Tool, err)
		}
		return Decision{Behavior: Deny, Rule: "ask-failed", Message: "could not ask for approval: " + err.Error()}, nil
	}
	switch ans.Decision {
	case AllowOnce:
		return Decision{Behavior: Allow, Rule: "user:allow_once", UpdatedInput: ans.UpdatedInput}, nil
	case AllowAlways:
		e.saveGrants(ctx, ans.Scope, q.Rules)
		return Decision{Behavior: Allow, Rule: "user:allow_always " + q.Suggestion, UpdatedInput: ans.UpdatedInput}, nil
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
