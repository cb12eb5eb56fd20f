package compact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// SummaryPrompt is the system prompt of a summary request.
//
//go:embed prompt.md
var SummaryPrompt string

// transcriptResultChars caps each tool result in a transcript: the summary
// needs what a result showed, not all of it. transcriptTextChars caps a
// text block (a huge pasted prompt), keeping its head and tail.
const (
	transcriptResultChars = 2000
	transcriptTextChars   = 20000
)

// Transcript renders messages as plain text for the summary model. Plain
// text needs no tool definitions, works with every provider, and lets the
// size be controlled exactly.
func Transcript(msgs []message.Message) string {
	var sb strings.Builder
	for _, m := range msgs {
		if m.Kind == message.KindCompaction {
			sb.WriteString("[Previous summary]\n")
			sb.WriteString(m.PlainText())
			sb.WriteString("\n\n")
			continue
		}
		for _, b := range m.Content {
			switch b.Type {
			case message.Text:
				if strings.TrimSpace(b.Text) == "" {
					continue
				}
				if m.Role == message.User {
					sb.WriteString("[User]\n")
				} else {
					sb.WriteString("[Assistant]\n")
				}
				sb.WriteString(headTail(b.Text, transcriptTextChars))
			case message.ToolUse:
				fmt.Fprintf(&sb, "[Tool call %s] %s", b.Name, shorten(string(b.Input), 1000))
			case message.ToolResult:
				var text strings.Builder
				for _, c := range b.Content {
					if c.Type == message.Text {
						text.WriteString(c.Text)
					} else if c.Type == message.Image {
						text.WriteString("[image]")
					}
				}
				label := "[Tool result]"
				if b.IsError {
					label = "[Tool error]"
				}
				sb.WriteString(label + "\n" + shorten(text.String(), transcriptResultChars))
			case message.Image:
				sb.WriteString("[User attached an image]")
			default:
				continue
			}
			sb.WriteString("\n\n")
		}
	}
	return sb.String()
}

// Chunks splits msgs into runs whose transcripts fit in budget tokens each,
// so a conversation larger than the summary model's window is summarised
// in passes, each carrying the previous pass's summary forward.
func Chunks(msgs []message.Message, budget int64) [][]message.Message {
	var out [][]message.Message
	var cur []message.Message
	var n int64
	for _, m := range msgs {
		t := Tokens(Transcript([]message.Message{m}))
		if len(cur) > 0 && n+t > budget {
			out = append(out, cur)
			cur, n = nil, 0
		}
		cur = append(cur, m)
		n += t
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Instructions is the user message that asks for the summary.
func Instructions(transcript, previous, focus string) string {
	var sb strings.Builder
	if previous != "" {
		sb.WriteString("<previous-summary>\n" + previous + "\n</previous-summary>\n\n")
	}
	sb.WriteString("<conversation>\n" + transcript + "</conversation>\n\n")
	sb.WriteString("Write the summary of the conversation above now, following the sections in your instructions.")
	if strings.TrimSpace(focus) != "" {
		sb.WriteString("\n\nThe user asked the summary to focus on: " + strings.TrimSpace(focus))
	}
	return sb.String()
}

// BoundaryText is what the model receives in place of the summarised
// messages: the summary, and the todo list as it stood.
func BoundaryText(summary string, todos []event.Todo) string {
	var sb strings.Builder
	sb.WriteString("This session is being continued from an earlier conversation that no longer fits in the context window. The summary below covers the earlier part; the messages after it are verbatim.\n\n")
	sb.WriteString(strings.TrimSpace(summary))
	if len(todos) > 0 {
		sb.WriteString("\n\n## Todo list (as it stands)\n")
		for _, t := range todos {
			fmt.Fprintf(&sb, "- [%s] %s\n", t.Status, t.Content)
		}
	}
	sb.WriteString("\n\nContinue the work from where it stopped; do not ask the user to repeat anything the summary covers.")
	return sb.String()
}

// LatestTodos is the todo list as the last TodoWrite call in msgs left it.
func LatestTodos(msgs []message.Message) []event.Todo {
	for i := len(msgs) - 1; i >= 0; i-- {
		uses := msgs[i].ToolUses()
		for j := len(uses) - 1; j >= 0; j-- {
			if uses[j].Name != "TodoWrite" {
				continue
			}
			var in struct {
				Todos []event.Todo `json:"todos"`
			}
			if json.Unmarshal(uses[j].Input, &in) == nil {
				return in.Todos
			}
		}
	}
	return nil
}

// headTail keeps the first and last parts of a long text.
func headTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return validUTF8(s[:n*3/4]) + fmt.Sprintf("\n[... %d characters left out ...]\n", len(s)-n) + validUTF8(s[len(s)-n/4:])
}
