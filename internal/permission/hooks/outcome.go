package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Decisions a hook can make.
const (
	DecisionNone  = ""
	DecisionAllow = "allow"
	DecisionAsk   = "ask"
	DecisionDeny  = "deny" // PreToolUse/PermissionRequest deny, or "block" for the other events
)

// Outcome combines every matching hook's answer.
type Outcome struct {
	// Decision is the strongest decision: deny beats ask beats allow.
	Decision string
	// Reason explains a deny or block (stderr of exit 2, or the JSON
	// reason); it goes to the model.
	Reason string
	// UpdatedInput rewrites the tool input (PreToolUse, PermissionRequest).
	UpdatedInput json.RawMessage
	// UpdatedToolOutput replaces the tool result the model reads
	// (PostToolUse's updatedToolOutput, or updatedMCPToolOutput for an MCP
	// tool): a JSON string is the new text, anything else its JSON.
	UpdatedToolOutput json.RawMessage
	// SessionTitle names the session (UserPromptSubmit, SessionStart).
	SessionTitle string
	// UpdatedPermissions are Claude Code permission updates a
	// PermissionRequest allow applies ({type: addRules|replaceRules|
	// removeRules|setMode|addDirectories|removeDirectories, ...}).
	UpdatedPermissions []json.RawMessage
	// Interrupt is a PermissionRequest deny that also stops the turn.
	Interrupt bool
	// AdditionalContext is text for the model (plain stdout of
	// UserPromptSubmit and SessionStart, hookSpecificOutput.additionalContext).
	AdditionalContext string
	// Stop is true when a hook answered `"continue": false`; StopReason says why.
	Stop       bool
	StopReason string
	// SystemMessage is shown to the user.
	SystemMessage string
	// SuppressOutput asks that the hook's output stay out of the transcript.
	SuppressOutput bool
	// Errors are non-blocking failures (other exit codes, timeouts, HTTP
	// errors, exit 2 of events that cannot block).
	Errors []string
}

// result is what one hook answered.
type result struct {
	exitCode int
	stdout   string // or the HTTP response body
	stderr   string
	err      error // could not run, timed out, or a non-blocking HTTP failure
}

// output is the JSON a hook may print (Claude Code's fields).
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"` // legacy: approve | block
	Reason         string `json:"reason"`
	Specific       struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
		UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
		SessionTitle             string          `json:"sessionTitle"`
		// PermissionRequest's answer.
		Decision *struct {
			Behavior           string            `json:"behavior"`
			Message            string            `json:"message"`
			UpdatedInput       json.RawMessage   `json:"updatedInput"`
			UpdatedPermissions []json.RawMessage `json:"updatedPermissions"`
			Interrupt          bool              `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func rank(d string) int {
	switch d {
	case DecisionDeny:
		return 3
	case DecisionAsk:
		return 2
	case DecisionAllow:
		return 1
	}
	return 0
}

// combiner folds answers into an Outcome.
type combiner struct {
	o                 Outcome
	reasons, contexts []string
}

func (c *combiner) raise(d, reason string) {
	if d == DecisionDeny && reason != "" {
		c.reasons = append(c.reasons, reason)
	}
	if rank(d) > rank(c.o.Decision) {
		c.o.Decision = d
		if d != DecisionDeny && reason != "" {
			c.o.Reason = reason
		}
	}
}

func combineFor(in Input, hs []Handler, rs []result) Outcome {
	event := in.HookEventName
	sp, _ := spec(event)
	var c combiner
	for i, res := range rs {
		switch {
		case res.err != nil:
			c.o.Errors = append(c.o.Errors, res.err.Error())
		case res.exitCode == 2 && sp.exit2 == exit2Block:
			reason := res.stderr
			if reason == "" {
				reason = fmt.Sprintf("blocked by hook %q", hs[i])
			}
			c.raise(DecisionDeny, reason)
		case res.exitCode != 0:
			c.o.Errors = append(c.o.Errors, fmt.Sprintf("hook %q exited %d: %s", hs[i], res.exitCode, res.stderr))
		default:
			trimmed := strings.TrimSpace(res.stdout)
			var out output
			if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &out) == nil {
				c.apply(in, out)
			} else if trimmed != "" && sp.plainContext && hs[i].Type == TypeCommand {
				c.contexts = append(c.contexts, trimmed)
			} else if trimmed != "" && trimmed != "null" && hs[i].Type != TypeCommand {
				c.o.Errors = append(c.o.Errors, fmt.Sprintf("hook %q answered with a body that is not a JSON object", hs[i]))
			}
		}
	}
	if len(c.reasons) > 0 {
		c.o.Reason = strings.Join(c.reasons, "\n")
	}
	c.o.AdditionalContext = strings.Join(c.contexts, "\n")
	return c.o
}

func (c *combiner) apply(in Input, out output) {
	sp := out.Specific
	if in.HookEventName == PostToolUse {
		// updatedMCPToolOutput counts only for an MCP tool, and only when
		// updatedToolOutput is absent (Claude Code's rule).
		switch {
		case hasJSON(sp.UpdatedToolOutput):
			c.o.UpdatedToolOutput = sp.UpdatedToolOutput
		case hasJSON(sp.UpdatedMCPToolOutput) && strings.HasPrefix(in.ToolName, "mcp__"):
			c.o.UpdatedToolOutput = sp.UpdatedMCPToolOutput
		}
	}
	if sp.SessionTitle != "" && (in.HookEventName == UserPromptSubmit || in.HookEventName == SessionStart) {
		c.o.SessionTitle = sp.SessionTitle
	}
	switch sp.PermissionDecision {
	case "allow", "ask", "deny":
		c.raise(sp.PermissionDecision, sp.PermissionDecisionReason)
	}
	if d := sp.Decision; d != nil {
		switch d.Behavior {
		case "allow", "deny":
			c.raise(d.Behavior, d.Message)
		}
		if d.Behavior == "deny" && d.Interrupt {
			c.o.Interrupt = true
		}
		if d.Behavior == "allow" && hasJSON(d.UpdatedInput) {
			c.o.UpdatedInput = d.UpdatedInput
		}
		if d.Behavior == "allow" {
			c.o.UpdatedPermissions = append(c.o.UpdatedPermissions, d.UpdatedPermissions...)
		}
	}
	switch out.Decision {
	case "block":
		c.raise(DecisionDeny, out.Reason)
	case "approve":
		c.raise(DecisionAllow, out.Reason)
	}
	if hasJSON(sp.UpdatedInput) {
		c.o.UpdatedInput = sp.UpdatedInput
	}
	if sp.AdditionalContext != "" {
		c.contexts = append(c.contexts, sp.AdditionalContext)
	}
	if out.Continue != nil && !*out.Continue {
		c.o.Stop = true
		c.o.StopReason = out.StopReason
	}
	if out.SystemMessage != "" {
		c.o.SystemMessage = out.SystemMessage
	}
	if out.SuppressOutput {
		c.o.SuppressOutput = true
	}
}

func hasJSON(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
