package permission

import "github.com/tandem-agent/tandem/internal/tool"

// Offers reports whether tool t can do anything in mode m, so a request in
// that mode offers it: explore mode denies every call that may change
// something (it never asks), so offering Edit there only teaches the model
// by denials. What t declares decides: read-only tools (Skill and Agent,
// whose work is judged call by call, and WebFetch, judged by its URL
// rules, among them), contained ones (tool.Contained) and the ones that
// run commands (tool.KindExecute: read-only commands run in explore mode)
// stay, and so do questions to the user (tool.Interactive); a plan
// approval (ExitPlanMode) is offered only in explore mode, where there is
// a plan to approve. The rest of the engine's judgement depends on a
// call's input and is made when the call comes.
func Offers(m Mode, t tool.Tool) bool {
	switch tool.InteractionOf(t) {
	case PlanApproval:
		// A plan to approve exists only in explore mode.
		return m == Explore
	case "":
	default:
		return true // a question to the user changes nothing
	}
	if m != Explore {
		return true
	}
	return tool.IsReadOnly(t) || tool.IsContained(t) || tool.KindOf(t) == tool.KindExecute
}

// CanAsk reports whether a call that needs approval can be put to someone:
// without an asker (`tandem run -p`) it is denied with an explanation, and
// the model is told so up front.
func (e *Engine) CanAsk() bool { return e.opts.Asker != nil }

// CanAsk is the engine's: a narrowed view asks the same asker.
func (n narrowed) CanAsk() bool { return n.e.CanAsk() }
