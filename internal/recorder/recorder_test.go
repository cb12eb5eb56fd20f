package recorder

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := storeopen.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestForSession(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, store.Session{Cwd: "/p", Model: "anthropic/claude", Runtime: "native"})
	if err != nil {
		t.Fatal(err)
	}
	r := ForSession(s, sess.ID, nil)
	cost := 0.5
	if err := r.Append(ctx, message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock("ok")},
		Usage: &message.Usage{InputTokens: 3}, CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	h, err := r.History(ctx)
	if err != nil || len(h) != 1 || h[0].PlainText() != "ok" {
		t.Fatalf("history = %v, %v", h, err)
	}
	if err := r.SetMeta(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Meta(ctx, "k"); err != nil || v != "v" {
		t.Errorf("meta = %q, %v", v, err)
	}
	if err := ForSession(s, "ses_missing", nil).Append(ctx, message.Message{Role: message.User}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("append to missing session err = %v", err)
	}
}

func TestStoreRecorderKeepsLastSeq(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, store.Session{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	seq := int64(41)
	rec := ForSession(s, sess.ID, func() int64 { return seq })
	if err := rec.Append(ctx, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("x")}}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(ctx, sess.ID)
	if got.LastSeq != 41 {
		t.Fatalf("last_seq %d, want 41", got.LastSeq)
	}
	low := int64(3)
	if err := s.UpdateSession(ctx, sess.ID, store.SessionUpdate{LastSeq: &low}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.GetSession(ctx, sess.ID); got.LastSeq != 41 {
		t.Fatalf("last_seq went back to %d", got.LastSeq)
	}
}
