package hooks

// ClaudeOutput turns a combined outcome back into Claude Code's hook JSON
// output, for the claude-code runtime to hand to the CLI (which then
// applies it with Claude Code's semantics).
func (o Outcome) ClaudeOutput(event string) map[string]any {
	out := map[string]any{}
	if o.Decision == DecisionDeny {
		sp, _ := spec(event)
		if sp.exit2 == exit2Block {
			out["decision"] = "block"
			out["reason"] = o.Reason
		}
	}
	specific := map[string]any{}
	if o.AdditionalContext != "" {
		specific["additionalContext"] = o.AdditionalContext
	}
	if hasJSON(o.UpdatedToolOutput) && event == PostToolUse {
		specific["updatedToolOutput"] = o.UpdatedToolOutput
	}
	if len(specific) > 0 {
		specific["hookEventName"] = event
		out["hookSpecificOutput"] = specific
	}
	if o.Stop {
		out["continue"] = false
		if o.StopReason != "" {
			out["stopReason"] = o.StopReason
		}
	}
	if o.SystemMessage != "" {
		out["systemMessage"] = o.SystemMessage
	}
	if o.SuppressOutput {
		out["suppressOutput"] = true
	}
	return out
}
