package cliproto

import (
	"cmp"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// initLine is Claude Code's system/init message.
func (d *driver) initLine(live *session.Live) map[string]any {
	rec := live.Info()
	tools := []string{}
	hidden := map[string]bool{}
	for _, t := range d.disallowedTools(live) {
		hidden[t] = true
	}
	for _, n := range live.Tools().Names() {
		if !hidden[n] {
			tools = append(tools, n)
		}
	}
	servers := []map[string]any{}
	list, _, _ := live.MCPStatus()
	for _, s := range list {
		servers = append(servers, map[string]any{"name": s.Name, "status": mcpState(s)})
	}
	commands, agents, skillNames := []string{}, []string{}, []string{}
	for _, c := range live.SlashCommands() {
		commands = append(commands, c.Name)
	}
	if ext, ok := live.Extensions(); ok {
		for _, a := range ext.Agents {
			agents = append(agents, a.Name)
		}
		for _, s := range ext.Skills {
			skillNames = append(skillNames, s.Name)
		}
	}
	// tandem has no plugins and no output styles: plugins is empty (its
	// entries would be {name, path, source}) and the style is "default".
	return map[string]any{"type": "system", "subtype": "init", "cwd": rec.Cwd, "session_id": rec.ID, "tools": tools,
		"mcp_servers": servers, "model": bareModel(rec.Model), "permissionMode": modeName(live.Mode()),
		"slash_commands": commands, "apiKeySource": "none", "claude_code_version": ProtocolVersion,
		"output_style": "default", "agents": agents, "skills": skillNames, "plugins": []any{}, "uuid": newUUID()}
}

// mcpState spells a server's state as Claude Code's mcp_servers do.
func mcpState(s mcp.ServerStatus) string {
	switch string(s.State) {
	case "connected":
		return "connected"
	case "starting", "connecting", "reconnecting":
		return "pending"
	case "disabled":
		if s.NeedsApproval {
			return "needs-auth"
		}
		return "disabled"
	}
	return "failed"
}

// resultLine is Claude Code's result message for a finished turn.
func (d *driver) resultLine(live *session.Live, res event.Event, runErr error, st *turnStats, interrupted bool) map[string]any {
	rec := live.Info()
	st.mu.Lock()
	apiMS, cost := st.apiTime.Milliseconds(), st.cost
	st.mu.Unlock()
	subtype, isErr, stop := "success", false, "end_turn"
	var errs []string
	switch {
	case runErr != nil:
		subtype, isErr, errs = "error_during_execution", true, []string{runErr.Error()}
	case res.Subtype == event.SubtypeMaxBudget:
		subtype, isErr, errs = "error_max_budget_usd", true, []string{res.Error}
	case res.Subtype == event.SubtypeMaxTurns:
		subtype, isErr, errs = "error_max_turns", true, []string{res.Error}
	case res.Subtype == event.SubtypeInterrupted || interrupted:
		subtype, isErr, errs, stop = "error_during_execution", true, []string{"interrupted by the user"}, "tool_use"
	case res.IsError:
		subtype, isErr, errs = "error_during_execution", true, []string{cmp.Or(res.Error, res.Result, "the turn failed")}
	}
	if res.CostUSD != nil {
		cost = *res.CostUSD
	}
	usage := res.Usage
	if usage == nil {
		usage = &message.Usage{}
	}
	u := apiUsage(usage)
	u["server_tool_use"] = map[string]any{"web_search_requests": 0, "web_fetch_requests": 0}
	model := bareModel(rec.Model)
	mu := map[string]any{"inputTokens": usage.InputTokens, "outputTokens": usage.OutputTokens,
		"cacheReadInputTokens": usage.CacheReadTokens, "cacheCreationInputTokens": usage.CacheCreationTokens,
		"webSearchRequests": 0, "costUSD": cost}
	if r, err := d.app.Catalog.Resolve(rec.Model); err == nil && r.Info != nil {
		mu["contextWindow"], mu["maxOutputTokens"] = r.Info.ContextWindow, r.Info.MaxOutputTokens
	}
	denials := []map[string]any{}
	for _, dn := range res.PermissionDenials {
		denials = append(denials, map[string]any{"tool_name": dn.ToolName, "tool_use_id": dn.ToolUseID, "tool_input": dn.ToolInput})
	}
	line := map[string]any{"type": "result", "subtype": subtype, "is_error": isErr,
		"duration_ms": time.Since(st.start).Milliseconds(), "duration_api_ms": apiMS, "num_turns": res.NumTurns,
		"session_id": rec.ID, "total_cost_usd": cost, "usage": u, "modelUsage": map[string]any{model: mu},
		"permission_denials": denials, "stop_reason": stop, "terminal_reason": terminalReason(subtype), "uuid": newUUID()}
	if isErr {
		line["errors"] = errs
	} else {
		line["result"] = res.Result
	}
	if len(res.StructuredOutput) > 0 {
		line["structured_output"] = res.StructuredOutput
	}
	return line
}

func terminalReason(subtype string) string {
	switch subtype {
	case "success":
		return "completed"
	case "error_max_turns":
		return "max_turns"
	case "error_max_budget_usd":
		return "max_budget"
	}
	return "error"
}

// errorResult is the result line of a run that failed before any turn.
func errorResult(sessionID, msg string) map[string]any {
	return map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "duration_ms": 0,
		"duration_api_ms": 0, "num_turns": 0, "session_id": sessionID, "total_cost_usd": 0,
		"usage": apiUsage(nil), "modelUsage": map[string]any{}, "permission_denials": []any{},
		"errors": []string{msg}, "stop_reason": nil, "terminal_reason": "error", "uuid": newUUID()}
}
