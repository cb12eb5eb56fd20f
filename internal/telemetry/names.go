package telemetry

// Claude Code's names (its monitoring documentation), kept so its
// dashboards work unchanged. One list: the session and the tests read
// them from here.
const (
	MetricSessionCount     = "claude_code.session.count"
	MetricLinesOfCode      = "claude_code.lines_of_code.count"
	MetricPullRequests     = "claude_code.pull_request.count"
	MetricCommits          = "claude_code.commit.count"
	MetricCost             = "claude_code.cost.usage"
	MetricTokens           = "claude_code.token.usage"
	MetricCodeEditDecision = "claude_code.code_edit_tool.decision"
	MetricActiveTime       = "claude_code.active_time.total"

	// Events are log records whose body is "claude_code." + the name and
	// whose event.name attribute is the name.
	EventUserPrompt   = "user_prompt"
	EventToolResult   = "tool_result"
	EventAPIRequest   = "api_request"
	EventAPIError     = "api_error"
	EventToolDecision = "tool_decision"

	SpanInteraction   = "claude_code.interaction"
	SpanLLMRequest    = "claude_code.llm_request"
	SpanTool          = "claude_code.tool"
	SpanBlockedOnUser = "claude_code.tool.blocked_on_user"
	SpanSubagent      = "claude_code.subagent"

	// ServiceName is the resource's service.name unless OTEL_SERVICE_NAME
	// says otherwise (the metric names stay Claude Code's).
	ServiceName = "tandem"
	// scope names the instrumentation scope of every signal.
	scope = "github.com/tandem-agent/tandem"
	// redacted stands for a prompt or input the user did not let out.
	redacted = "<REDACTED>"
)

// Attribute keys shared by metrics and events.
const (
	attrSessionID    = "session.id"
	attrUserID       = "user.id"
	attrAppVersion   = "app.version"
	attrTerminalType = "terminal.type"
)

// isCodeEditTool says whether Claude Code counts the tool in
// claude_code.code_edit_tool.decision (tandem's MultiEdit too).
func isCodeEditTool(name string) bool {
	switch name {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}
