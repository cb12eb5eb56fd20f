package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
)

func ptr[T any](v T) *T { return &v }

func BenchmarkAppendMessage(b *testing.B) {
	s := openTest(b)
	ctx := context.Background()
	sess := newSession(b, s, "/p")
	m := message.Message{Role: message.Assistant, Usage: &message.Usage{InputTokens: 1000, OutputTokens: 200}, CostUSD: ptr(0.01),
		Content: []message.Block{message.TextBlock(strings.Repeat("some text ", 100)),
			{Type: message.ToolUse, ID: "toolu_1", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}}}
	for b.Loop() {
		if _, err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			b.Fatal(err)
		}
	}
}
