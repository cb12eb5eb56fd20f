package permission

import "github.com/tandem-agent/tandem/internal/tool"

// Offers reports whether a tool can do anything in mode m, so a request in
// that mode offers it: explore mode denies every call that may change
// something (it never asks), so offering Edit there only teaches the model
// by denials. Read-only tools, the tools judged harmless, Skill (its work
// is judged call by call), WebFetch (judged by its URL rules only) and Bash (read-only commands run in explore mode)
// stay. The rest of the engine's judgement depends on a call's input and
// is made when the call comes.
func Offers(m Mode, tool string, readOnly bool) bool {
	if m != Explore {
		return true
	}
	return readOnly || harmlessTools[tool] || tool == "Skill" || tool == "Bash" || tool == "WebFetch"
}

// CanAsk reports whether a call that needs approval can be put to someone:
// without an asker (`tandem run -p`) it is denied with an explanation, and
// the model is told so up front.
func (e *Engine) CanAsk() bool { return e.opts.Asker != nil }

// CanAsk is the engine's: a narrowed view asks the same asker.
func (n narrowed) CanAsk() bool { return n.e.CanAsk() }

// OffersTool is Offers for a tool of the registry: a plan approval
// (ExitPlanMode) only in explore mode, where there is a plan to approve.
func OffersTool(m Mode, t tool.Tool) bool {
	if tool.InteractionOf(t) == PlanApproval {
		return m == Explore
	}
	return Offers(m, t.Name(), tool.IsReadOnly(t))
}
