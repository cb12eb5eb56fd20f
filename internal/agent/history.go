package agent

import (
	"github.com/tandem-agent/tandem/internal/message"
)

// repairHistory makes a stored conversation valid to send again. A process
// killed between recording an assistant message with tool calls and
// recording their results leaves tool_use blocks without tool_result; every
// provider rejects that, so each missing result is filled in with an error
// that tells the model what happened.
func repairHistory(history []message.Message) []message.Message {
	out := make([]message.Message, 0, len(history)+1)
	for i, m := range history {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			// Two user messages in a row (an interrupted step that produced
			// nothing, then a new prompt): providers want roles to alternate.
			prev := out[n-1]
			prev.Content = append(append([]message.Block{}, prev.Content...), m.Content...)
			out[n-1] = prev
		} else {
			out = append(out, m)
		}
		if m.Role != message.Assistant {
			continue
		}
		uses := m.ToolUses()
		if len(uses) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(history) && history[i+1].Role == message.User {
			for _, b := range history[i+1].Content {
				if b.Type == message.ToolResult {
					answered[b.ToolUseID] = true
				}
			}
		}
		var missing []message.Block
		for _, u := range uses {
			if !answered[u.ID] {
				missing = append(missing, message.Block{Type: message.ToolResult, ToolUseID: u.ID, IsError: true,
					Content: []message.Block{message.TextBlock("The tool call did not complete: the session was interrupted before it finished. What it does may have partly happened: check before you repeat it.")}})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if i+1 < len(history) && history[i+1].Role == message.User {
			// Results go first in the user message that follows, as providers expect.
			next := history[i+1]
			next.Content = append(missing, next.Content...)
			history[i+1] = next
			continue
		}
		out = append(out, message.Message{ID: newID("msg"), Role: message.User, Content: missing, CreatedAt: m.CreatedAt})
	}
	return out
}
