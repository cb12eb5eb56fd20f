package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// ElicitToolName is the tool name an MCP server's question (elicitation)
// carries when it goes out as a question of kind elicitation, so every
// front end that answers permission questions (terminal, web UI, ACP, the
// CLI protocol) shows it: allow_once accepts (the answer's updated_input,
// a JSON object, holds the form's values; fields left out get the schema's
// defaults), deny declines, cancel cancels.
func ElicitToolName(server string) string { return "mcp__" + server + "__elicitation" }

// mcpElicit routes MCP elicitations through the session's broker, the one
// place questions wait for an answer; ask is nil when no one can answer,
// and then every question is cancelled.
func mcpElicit(sessionID string, ask permission.Asker) mcp.ElicitFunc {
	return func(ctx context.Context, q mcp.Elicitation) (mcp.ElicitAnswer, error) {
		if ask == nil {
			return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, nil
		}
		input, err := json.Marshal(q)
		if err != nil {
			return mcp.ElicitAnswer{}, err
		}
		summary := fmt.Sprintf("MCP server %s asks: %s", termsafe.Line(q.Server), termsafe.Line(q.Message))
		if q.Mode == "url" {
			summary += " (open " + termsafe.Line(q.URL) + ")"
		}
		ans, err := ask.Ask(ctx, permission.Question{SessionID: sessionID, ToolName: ElicitToolName(q.Server),
			Input: input, Summary: summary, Kind: permission.Elicitation,
			Reason: "an MCP server asks for input; accept to send your answer, decline to refuse, cancel to dismiss"})
		if err != nil {
			return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, nil
		}
		switch ans.Decision {
		case permission.DenyCall:
			return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, nil
		case permission.Cancel:
			return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, nil
		}
		content, err := permission.ElicitContent(input, ans.UpdatedInput)
		if err != nil {
			// The broker checked the answer with the same rule; an
			// asker that bypassed it gets the server's question
			// declined, not a malformed answer sent.
			return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, nil
		}
		return mcp.ElicitAnswer{Action: mcp.ElicitAccept, Content: content}, nil
	}
}
