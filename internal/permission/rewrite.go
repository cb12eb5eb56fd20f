package permission

import (
	"bytes"
	"context"
	"encoding/json"
)

// An input rewritten by a PreToolUse hook, a PermissionRequest hook or the
// answer to a question (an SDK host's can_use_tool updatedInput, a front
// end's updated_input) is a new call: what runs is what is judged. Every
// rewrite goes through rejudge, so deny rules, the workspace boundary,
// protected paths and the mode see the input that will run, not the one
// that was asked about.

// maxRewrites bounds how often answers may rewrite one call (each rewrite
// that raises a new question asks it once more).
const maxRewrites = 2

// rejudge judges req with its input replaced by updated. (Explore mode
// never gets to ask, so its turning an ask into a denial stays with Check.)
func (e *Engine) rejudge(mode Mode, req Request, updated json.RawMessage) (Request, verdict) {
	again := req
	again.Input = updated
	return again, e.judge(mode, again)
}

// rewritten reports whether updated differs from the input it replaces
// (SDK hosts commonly echo the input back unchanged).
func rewritten(original, updated json.RawMessage) bool {
	if len(updated) == 0 {
		return false
	}
	var a, b any
	if json.Unmarshal(original, &a) != nil || json.Unmarshal(updated, &b) != nil {
		return !bytes.Equal(original, updated)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return !bytes.Equal(ja, jb)
}

// answeredRewrite turns an allowing answer that rewrote the input into a
// decision on the rewritten call. The answer approved the question it was
// asked (answered); a rewritten call that is denied is denied naming why,
// one that asks for the same reason is covered by that answer, and one
// that asks for another reason (a path moved outside the workspace or onto
// a protected file, a command that is no longer the one approved) is asked
// about as itself.
func (e *Engine) answeredRewrite(ctx context.Context, mode Mode, req Request, answered verdict, d Decision, depth int) (Decision, error) {
	if d.Behavior != Allow || !rewritten(req.Input, d.UpdatedInput) {
		d.UpdatedInput = nil
		return d, nil
	}
	again, v := e.rejudge(mode, req, d.UpdatedInput)
	switch {
	case v.action == ActionDeny:
		return rewriteDenied(v), nil
	case v.action == ActionAllow || v.reason == answered.reason:
		return d, nil
	case depth >= maxRewrites:
		return Decision{Behavior: Deny, Rule: "rewrite", Message: "the approved input was rewritten again and needs approval of its own (" +
			v.reason + "): approve the call as it will run, without rewriting it"}, nil
	}
	return e.askAt(ctx, mode, again, v, depth+1)
}

// rewriteDenied is the denial of a rewritten input, naming why.
func rewriteDenied(v verdict) Decision {
	return Decision{Behavior: Deny, Rule: v.rule, Message: "the rewritten input (updatedInput) is denied: " + v.reason}
}
