package permission

// Explanation is how the engine judges a call by its mode and rules alone:
// no hook runs and nobody is asked. The terminal UI's /permissions shows
// it, so a user can see which rule decides a command before the agent
// runs it.
type Explanation struct {
	Mode   Mode
	Action Action // allow, deny or ask
	// Reason says why it denies or asks; Rule names the rule (with its
	// source) or the mode that decided.
	Reason, Rule string
	// Suggestion is what "allow always" would save, when it asks and may
	// offer that.
	Suggestion []Rule
}

// Explain judges req as Check would before hooks and asking.
func (e *Engine) Explain(req Request) Explanation {
	mode := e.Mode()
	v := e.judge(mode, req)
	if mode == Explore && v.action == ActionAsk {
		v = verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode is read-only and never asks: " + v.reason}
	}
	if v.rule == "" {
		v.rule = "mode:" + string(mode)
	}
	x := Explanation{Mode: mode, Action: v.action, Reason: v.reason, Rule: v.rule}
	if v.action == ActionAsk && !v.noAlways {
		x.Suggestion = v.suggest
	}
	return x
}
