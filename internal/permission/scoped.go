package permission

import (
	"context"
	"slices"
	"strings"
)

// modeStrictness orders modes from the most to the least restrictive.
var modeStrictness = []Mode{Explore, DontAsk, Normal, AcceptEdits, Trust}

// Stricter returns the more restrictive of two modes (an unknown mode
// counts as Normal).
func Stricter(a, b Mode) Mode {
	rank := func(m Mode) int {
		if i := slices.Index(modeStrictness, m); i >= 0 {
			return i
		}
		return slices.Index(modeStrictness, Normal)
	}
	if rank(b) < rank(a) {
		return b
	}
	return a
}

// Narrowed returns a Checker that judges with the same rules, hooks and
// asker as e, in the stricter of e's current mode and mode: what a
// sub-agent with its own permissionMode gets. It can never allow what e
// would refuse.
func (e *Engine) Narrowed(mode Mode) Checker {
	return narrowed{e: e, mode: mode}
}

type narrowed struct {
	e    *Engine
	mode Mode
}

func (n narrowed) Check(ctx context.Context, req Request) (Decision, error) {
	return n.e.check(ctx, Stricter(n.e.Mode(), n.mode), req)
}

// Mode is the mode the view judges in.
func (n narrowed) Mode() Mode { return Stricter(n.e.Mode(), n.mode) }

// Grant adds rules until revoke is called: a skill's or command's
// allowed-tools (allow) and disallowed-tools (deny) while it runs. They sit
// in the session layer, so deny and ask rules of every layer still beat an
// allow, and explore mode still refuses writes. source must be unique to this grant (revoke removes the rules
// carrying it).
func (e *Engine) Grant(source string, rules []Rule) (revoke func()) {
	e.mu.Lock()
	for _, r := range rules {
		if r.Action == ActionAllow || r.Action == ActionDeny {
			r.Source = source
			e.session = append(e.session, r)
		}
	}
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.session = slices.DeleteFunc(e.session, func(r Rule) bool { return r.Source == source })
	}
}

// invokedName is what a Skill or Agent (Task) call invokes, for rules such
// as Skill(pdf) and Agent(Explore).
func invokedName(tool string, in toolInput) (string, bool) {
	switch tool {
	case "Skill":
		return strings.TrimPrefix(in.Skill, "/"), true
	case "Agent", "Task":
		if in.SubagentType == "" {
			return "general-purpose", true
		}
		return in.SubagentType, true
	}
	return "", false
}
