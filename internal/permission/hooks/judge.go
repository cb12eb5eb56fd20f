package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Judge answers prompt and agent hooks for a runner; the app builds it on
// the session's provider and sub-agents. A nil Judge makes such hooks
// non-blocking errors.
type Judge interface {
	// Prompt asks model (empty: the small model, else the session's) one
	// question with system instructions and returns the answer's text.
	Prompt(ctx context.Context, model, system, prompt string) (string, error)
	// Agent runs a read-only sub-agent (Read, Grep, Glob) on prompt with
	// system instructions and returns its final text.
	Agent(ctx context.Context, model, system, prompt string) (string, error)
}

// Claude Code's default timeouts of prompt and agent hooks.
const (
	PromptTimeout = 30 * time.Second
	AgentTimeout  = 60 * time.Second
)

// judgeSystem is what a prompt or agent hook's model is told (after Claude
// Code's own evaluator instructions).
const judgeSystem = `You are evaluating a hook in a coding agent. The user's text says what to check. Decide whether the action may go ahead.

The event's JSON is given with the question. Your response must be a JSON object, and nothing else, with one of these shapes:
- {"ok": true, "reason": "<why the action may go ahead>"}
- {"ok": false, "reason": "<why the action is blocked>"}

Always include a "reason" field.`

const agentSystemExtra = `

You may use your tools (Read, Grep, Glob) to check the project before you answer. Your final message must be the JSON object alone.`

// verdict is a judge's answer.
type verdict struct {
	OK     *bool  `json:"ok"`
	Reason string `json:"reason"`
}

// judgePrompt is the hook's prompt with $ARGUMENTS replaced by the input
// JSON, or followed by it when the prompt does not place it.
func judgePrompt(h Handler, body []byte) string {
	if strings.Contains(h.Prompt, "$ARGUMENTS") {
		return strings.ReplaceAll(h.Prompt, "$ARGUMENTS", string(body))
	}
	return h.Prompt + "\n\nHook input:\n" + string(body)
}

// judge runs a prompt or agent hook and turns its verdict into the JSON
// output a command hook would print: ok true is no objection; ok false is
// a block with the reason (a deny for PreToolUse and PermissionRequest)
// that also ends the turn unless continueOnBlock, or the event is Stop or
// SubagentStop, whose block means "go on".
func (r *Runner) judge(ctx context.Context, h Handler, event string, body []byte) result {
	if r.judgeBy == nil {
		return result{err: fmt.Errorf("hook %s: %s hooks need a model, and this runner has none", h, h.Type)}
	}
	timeout := h.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var text string
	var err error
	if h.Type == TypeAgent {
		text, err = r.judgeBy.Agent(ctx, h.Model, judgeSystem+agentSystemExtra, judgePrompt(h, body))
	} else {
		text, err = r.judgeBy.Prompt(ctx, h.Model, judgeSystem, judgePrompt(h, body))
	}
	switch {
	case ctx.Err() != nil && err != nil:
		return result{err: fmt.Errorf("hook %s stopped after %s: %w", h, timeout, ctx.Err())}
	case err != nil:
		return result{err: fmt.Errorf("hook %s: %w", h, err)}
	}
	v, err := parseVerdict(text)
	if err != nil {
		return result{err: fmt.Errorf("hook %s: %w", h, err)}
	}
	if *v.OK {
		return result{stdout: "{}"}
	}
	reason := firstText(v.Reason, "the "+h.Type+" hook said no")
	out := map[string]any{"decision": "block", "reason": reason}
	if event == PreToolUse || event == PermissionRequest {
		out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event,
			"permissionDecision": "deny", "permissionDecisionReason": reason}}
	}
	if !h.ContinueOnBlock && event != Stop && event != SubagentStop {
		out["continue"], out["stopReason"] = false, reason
	}
	raw, _ := json.Marshal(out)
	return result{stdout: string(raw)}
}

// parseVerdict finds the {"ok": ...} object in a model's answer (which may
// wrap it in prose or a code fence).
func parseVerdict(text string) (verdict, error) {
	t := strings.TrimSpace(text)
	if i, j := strings.Index(t, "{"), strings.LastIndex(t, "}"); i >= 0 && j > i {
		t = t[i : j+1]
	}
	var v verdict
	if err := json.Unmarshal([]byte(t), &v); err != nil || v.OK == nil {
		return verdict{}, fmt.Errorf("the model's answer is not {\"ok\": true|false, \"reason\": ...}: %.200q", text)
	}
	return v, nil
}

func firstText(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
