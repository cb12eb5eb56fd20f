package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
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

// BenchmarkDaySpend is what a model call of a turn under tandem serve's
// daily budget per user costs the store: the day's total read before the
// call (Spend) and the call's cost added after it (AddSpend).
func BenchmarkDaySpend(b *testing.B) {
	s := openTest(b)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, store.User{Name: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Spend(ctx, u.ID, "2026-12-02"); err != nil {
			b.Fatal(err)
		}
		if _, err := s.AddSpend(ctx, u.ID, "2026-12-02", 0.01); err != nil {
			b.Fatal(err)
		}
	}
}
