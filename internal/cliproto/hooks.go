package cliproto

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/tandem-agent/tandem/internal/permission"
)

// sdkHook is a hook the SDK host registered in initialize: tandem calls it
// back with hook_callback when its event fires.
type sdkHook struct {
	matcher *regexp.Regexp // nil: every tool
	ids     []string
	timeout time.Duration
}

func parseHooks(raw json.RawMessage) (map[string][]sdkHook, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var cfg map[string][]struct {
		Matcher         string   `json:"matcher"`
		HookCallbackIDs []string `json:"hookCallbackIds"`
		Timeout         float64  `json:"timeout"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("initialize hooks: %w", err)
	}
	out := map[string][]sdkHook{}
	for ev, ms := range cfg {
		for _, m := range ms {
			h := sdkHook{ids: m.HookCallbackIDs, timeout: 60 * time.Second}
			if m.Timeout > 0 {
				h.timeout = time.Duration(m.Timeout * float64(time.Second))
			}
			if m.Matcher != "" && m.Matcher != "*" {
				re, err := regexp.Compile("^(?:" + m.Matcher + ")$")
				if err != nil {
					return nil, fmt.Errorf("initialize hooks.%s matcher %q: %w", ev, m.Matcher, err)
				}
				h.matcher = re
			}
			out[ev] = append(out[ev], h)
		}
	}
	return out, nil
}

// hookOutput is the part of Claude Code's hook JSON tandem acts on.
type hookOutput struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// callHooks calls back every SDK hook of event that matches tool, in
// order, and returns their outputs.
func (d *driver) callHooks(ctx context.Context, event, tool, toolUseID string, input map[string]any) []hookOutput {
	d.mu.Lock()
	hooks := d.hooks[event]
	d.mu.Unlock()
	var outs []hookOutput
	for _, h := range hooks {
		if h.matcher != nil && !h.matcher.MatchString(tool) {
			continue
		}
		for _, id := range h.ids {
			hctx, cancel := context.WithTimeout(ctx, h.timeout)
			fields := map[string]any{"callback_id": id, "input": input}
			if toolUseID != "" {
				fields["tool_use_id"] = toolUseID
			}
			raw, err := d.ctl.request(hctx, "hook_callback", fields)
			cancel()
			if err != nil {
				d.warn("hook callback %s for %s: %v", id, event, err)
				continue
			}
			var o hookOutput
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &o); err != nil {
					d.warn("hook callback %s for %s answered %s: %v", id, event, raw, err)
					continue
				}
			}
			outs = append(outs, o)
		}
	}
	return outs
}

// hookChecker runs the SDK's PreToolUse hooks before tandem's permission
// engine judges a call, with Claude Code's semantics: a hook may deny,
// allow (skipping the ask), or rewrite the input.
type hookChecker struct {
	inner permission.Checker
	d     *driver
}

func (h hookChecker) Mode() permission.Mode {
	if m, ok := h.inner.(interface{ Mode() permission.Mode }); ok {
		return m.Mode()
	}
	return ""
}

func (h hookChecker) Check(ctx context.Context, req permission.Request) (permission.Decision, error) {
	var toolInput any = json.RawMessage(req.Input)
	if len(req.Input) == 0 {
		toolInput = map[string]any{}
	}
	outs := h.d.callHooks(ctx, "PreToolUse", req.Tool, req.ToolUseID, map[string]any{
		"session_id": req.SessionID, "cwd": h.d.cwd(), "permission_mode": modeName(h.Mode()),
		"hook_event_name": "PreToolUse", "tool_name": req.Tool, "tool_input": toolInput, "tool_use_id": req.ToolUseID})
	var updated json.RawMessage
	allow := false
	for _, o := range outs {
		if o.Continue != nil && !*o.Continue {
			h.d.interrupt()
			return permission.Decision{Behavior: permission.Deny, Rule: "sdk-hook", Message: cmp.Or(o.StopReason, "A PreToolUse hook stopped the turn.")}, nil
		}
		switch cmp.Or(o.HookSpecificOutput.PermissionDecision, legacyDecision(o.Decision)) {
		case "deny":
			return permission.Decision{Behavior: permission.Deny, Rule: "sdk-hook",
				Message: cmp.Or(o.HookSpecificOutput.PermissionDecisionReason, o.Reason, "A PreToolUse hook denied this call.")}, nil
		case "allow":
			allow = true
		}
		if len(o.HookSpecificOutput.UpdatedInput) > 0 {
			updated = o.HookSpecificOutput.UpdatedInput
		}
	}
	if len(updated) > 0 {
		req.Input = updated
	}
	if allow {
		// The host's own code decided, as a PreToolUse "allow" does in
		// Claude Code: the call runs without asking.
		return permission.Decision{Behavior: permission.Allow, Rule: "sdk-hook", UpdatedInput: updated}, nil
	}
	dec, err := h.inner.Check(ctx, req)
	if err == nil && dec.Behavior == permission.Allow && len(dec.UpdatedInput) == 0 {
		dec.UpdatedInput = updated
	}
	return dec, err
}

// legacyDecision maps the older top-level decision field.
func legacyDecision(d string) string {
	switch d {
	case "approve":
		return "allow"
	case "block":
		return "deny"
	}
	return ""
}
