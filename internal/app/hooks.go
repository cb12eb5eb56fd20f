package app

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// hookAdapter lets the agent loop call the hooks runner for the events it
// owns (PreToolUse runs inside the permission engine).
type hookAdapter struct {
	r    *hooks.Runner
	mode func() string
}

func (h hookAdapter) UserPromptSubmit(ctx context.Context, sessionID, cwd, prompt string) (string, string, error) {
	out, err := h.r.UserPromptSubmit(ctx, hooks.Input{SessionID: sessionID, Cwd: cwd, PermissionMode: h.mode(), Prompt: prompt})
	if out.Decision == hooks.DecisionDeny || out.Stop {
		return firstNonEmpty(out.Reason, out.StopReason, "blocked"), "", err
	}
	return "", out.AdditionalContext, joinErr(err, out.Errors)
}

func (h hookAdapter) PostToolUse(ctx context.Context, sessionID, cwd, toolName string, input []byte, result string) (string, error) {
	resp, _ := json.Marshal(map[string]string{"output": result})
	out, err := h.r.PostToolUse(ctx, hooks.Input{SessionID: sessionID, Cwd: cwd, PermissionMode: h.mode(),
		ToolName: toolName, ToolInput: input, ToolResponse: resp})
	if out.Decision == hooks.DecisionDeny {
		return firstNonEmpty(out.Reason, "a PostToolUse hook objected"), joinErr(err, out.Errors)
	}
	return out.AdditionalContext, joinErr(err, out.Errors)
}

func (h hookAdapter) Stop(ctx context.Context, sessionID, cwd string) (string, error) {
	out, err := h.r.Stop(ctx, hooks.Input{SessionID: sessionID, Cwd: cwd, PermissionMode: h.mode(), HookEventName: "Stop"})
	if out.Decision == hooks.DecisionDeny {
		// Claude Code semantics: "block" on Stop means keep going, with the reason as the next instruction.
		return firstNonEmpty(out.Reason, "A Stop hook asked you to continue."), joinErr(err, out.Errors)
	}
	return "", joinErr(err, out.Errors)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

type hookErrors []string

func (h hookErrors) Error() string { return strings.Join(h, "; ") }

func joinErr(err error, errs []string) error {
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return hookErrors(errs)
	}
	return nil
}
