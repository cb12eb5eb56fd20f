package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
)

// exportFormats are what `tandem sessions export --format` writes.
var exportFormats = []string{"json", "markdown"}

// writeMarkdown writes a session as a Markdown document for sharing: the
// prompts and answers as text, each tool call folded in a <details> block
// with its input and result, thinking left out (it is the model's
// scratch), images and compaction boundaries named where they were.
// Everything that came from the model or a tool is fenced, so it cannot
// turn into markup of the document.
func writeMarkdown(w io.Writer, s session.Summary, msgs []message.Message) error {
	title := s.Title
	if title == "" {
		title = "tandem session " + s.ID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdOneLine(title))
	fmt.Fprintf(&b, "- Session: `%s`\n- Folder: `%s`\n- Model: `%s` (%s runtime)\n- Started: %s\n- Tokens: %d in, %d out; cost %s\n\n",
		s.ID, mdOneLine(s.Cwd), mdOneLine(s.Model), firstNonEmpty(s.Runtime, string(runtimes.Native)),
		s.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), s.Usage.InputTokens, s.Usage.OutputTokens, costString(s.CostUSD))
	names := map[string]string{} // tool_use id → tool name, for its result
	for _, m := range msgs {
		if m.Kind == message.KindCompaction {
			b.WriteString("---\n\n*The conversation before this point was compacted into this summary:*\n\n")
			b.WriteString(mdQuote(m.PlainText()))
			b.WriteString("\n---\n\n")
			continue
		}
		heading := false
		for _, blk := range m.Content {
			switch blk.Type {
			case message.Text:
				if strings.TrimSpace(blk.Text) == "" {
					continue
				}
				if !heading {
					b.WriteString(mdRoleHeading(m.Role))
					heading = true
				}
				if m.Role == message.User {
					b.WriteString(mdQuote(blk.Text))
				} else {
					b.WriteString(blk.Text)
					b.WriteString("\n\n")
				}
			case message.Image:
				if !heading {
					b.WriteString(mdRoleHeading(m.Role))
					heading = true
				}
				fmt.Fprintf(&b, "*[image: %s, %d KiB]*\n\n", blk.MediaType, len(blk.ImageData)*3/4>>10)
			case message.ToolUse:
				names[blk.ID] = blk.Name
				fmt.Fprintf(&b, "<details><summary>Tool call: %s</summary>\n\n%s\n</details>\n\n", mdHTMLSafe(blk.Name), mdFence(mdIndentJSON(blk.Input), "json"))
			case message.ToolResult:
				label := "Result"
				if blk.IsError {
					label = "Error"
				}
				fmt.Fprintf(&b, "<details><summary>%s of %s</summary>\n\n%s\n</details>\n\n", label, mdHTMLSafe(names[blk.ToolUseID]), mdFence(mdResultText(blk), ""))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdRoleHeading(r message.Role) string {
	if r == message.User {
		return "## User\n\n"
	}
	return "## Assistant\n\n"
}

// resultText is a tool result's text, its images named.
func mdResultText(b message.Block) string {
	var parts []string
	for _, c := range b.Content {
		switch c.Type {
		case message.Text:
			parts = append(parts, c.Text)
		case message.Image:
			parts = append(parts, "[image: "+c.MediaType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

func mdIndentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// fence puts text in a code fence longer than any run of backticks in it.
func mdFence(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// quote makes text a Markdown block quote (the user's words, kept apart
// from the answer's own formatting).
func mdQuote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n") + "\n\n"
}

func mdOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func mdHTMLSafe(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
