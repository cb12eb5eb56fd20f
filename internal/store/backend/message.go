package backend

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/message"
)

// titleMax is the length (in characters) of a title taken from the first
// user message.
const titleMax = 80

// TitleFrom is the first non-blank line of text, cut to 80 characters.
func TitleFrom(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > titleMax {
			r := []rune(line)
			line = strings.TrimSpace(string(r[:titleMax-1])) + "…"
		}
		return line
	}
	return ""
}

// Appended is what appending a message changes beside storing it: the
// session's totals and possibly its title.
type Appended struct {
	Usage message.Usage // zero when the message has none
	// UnknownCost: a message that used tokens (an assistant reply, a
	// compaction's summary call) but has no price makes the session's
	// total unknown: summing the rest would understate it.
	UnknownCost bool
	// Title is the session's title when it has none yet; "" otherwise.
	Title string
}

// ForAppend says what appending m changes in its session.
func ForAppend(m message.Message) Appended {
	var a Appended
	if m.Usage != nil {
		a.Usage = *m.Usage
	}
	a.UnknownCost = (m.Role == message.Assistant || m.Kind != "") && m.Usage != nil && m.CostUSD == nil
	if m.Role == message.User && m.Kind == "" {
		a.Title = TitleFrom(m.PlainText())
	}
	return a
}

// EncodeCompaction is the stored form of a compaction boundary's facts:
// nil (NULL) for ordinary messages, JSON text otherwise.
func EncodeCompaction(c *message.Compaction) (any, error) {
	if c == nil {
		return nil, nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode compaction: %w", err)
	}
	return string(data), nil
}

// DecodeCompaction reads what EncodeCompaction stored.
func DecodeCompaction(s string) (*message.Compaction, error) {
	var c message.Compaction
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	return &c, nil
}

// Describe names a message for a "was not stored" error.
func Describe(m message.Message) string {
	if m.Role == message.Assistant {
		if n := len(m.ToolUses()); n > 0 {
			return fmt.Sprintf("the model's reply of this step (with %d tool call(s))", n)
		}
		return "the model's final answer (shown above)"
	}
	results := 0
	for _, b := range m.Content {
		if b.Type == message.ToolResult {
			results++
		}
	}
	if results > 0 {
		return fmt.Sprintf("the results of %d tool call(s) (the model will see them as interrupted)", results)
	}
	return "the prompt"
}
