package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

// BenchmarkAppendMessage is the SQLite backend's benchmark of the same
// name on a private PostgreSQL with durable commits (fsync and synchronous
// commit on, as a real server), over loopback TCP: a step's store write.
func BenchmarkAppendMessage(b *testing.B) {
	ctx := context.Background()
	s := durableStore(b)
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

// BenchmarkDaySpend is the SQLite backend's benchmark of the same name on
// a private PostgreSQL with durable commits, over loopback TCP: a model
// call's read of the user's day and its one-statement add.
func BenchmarkDaySpend(b *testing.B) {
	ctx := context.Background()
	s := durableStore(b)
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

// durableStore is a store on a private PostgreSQL with durable commits
// (fsync and synchronous commit on, as a real server), closed with b.
func durableStore(b *testing.B) *Store {
	url, stop, err := pgtest.Private(pgtest.Options{Durable: true})
	if err != nil {
		var nb *pgtest.NoBinariesError
		if !pgtest.Required() && errors.As(err, &nb) {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stop() })
	s, err := Open(context.Background(), url, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
