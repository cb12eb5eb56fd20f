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
// carries when it goes out as a permission question, so every front end
// that answers permission questions (terminal, web UI, ACP, the CLI
// protocol) shows it: allow accepts (the answer's updated_input, a JSON
// object, holds the form's values; left out, the schema's defaults apply),
// deny declines.
func ElicitToolName(server string) string { return "mcp__" + server + "__elicitation" }

// mcpElicit routes MCP elicitations through the session's broker; ask is
// nil when no one can answer, and then every question is cancelled.
func mcpElicit(sessionID string, ask permission.Asker) mcp.ElicitFunc {
	return func(ctx context.Context, q mcp.Elicitation) (mcp.ElicitAnswer, error) {
		if ask == nil {
			return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, nil
		}
		input, err := json.Marshal(q)
		if err != nil {
			return mcp.ElicitAnswer{}, err
		}
		summary := fmt.Sprintf("MCP server %s asks: %s", q.Server, termsafe.Line(q.Message))
		if q.Mode == "url" {
			summary += " (open " + termsafe.Line(q.URL) + ")"
		}
		ans, err := ask.Ask(ctx, permission.Question{SessionID: sessionID, ToolName: ElicitToolName(q.Server),
			Input: input, Summary: summary, Reason: "an MCP server asks for input; allow to answer (accept), deny to decline"})
		if err != nil {
			return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, nil
		}
		if ans.Decision == permission.DenyCall {
			return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, nil
		}
		out := mcp.ElicitAnswer{Action: mcp.ElicitAccept}
		if len(ans.UpdatedInput) > 0 {
			if err := json.Unmarshal(ans.UpdatedInput, &out.Content); err != nil {
				return mcp.ElicitAnswer{}, fmt.Errorf("the answer to %s's question is not a JSON object of form values: %w", q.Server, err)
			}
		}
		return out, nil
	}
}
