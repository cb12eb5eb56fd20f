package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// A write on a full disk fails with a *store.DiskFullError that says so
// and what to do, and loses nothing stored before; once space is back the
// same session takes messages again.
func testDiskFull(t *testing.T, diskFull func(t *testing.T) (DB, func(), func())) {
	db, fill, free := diskFull(t)
	ctx := context.Background()
	s := db(nil)
	sess := newSession(t, s, "/p")
	first := message.Message{Role: message.User, Content: []message.Block{message.TextBlock("before")}}
	if _, err := s.AppendMessage(ctx, sess.ID, first); err != nil {
		t.Fatal(err)
	}
	fill()
	big := message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(strings.Repeat("answer ", 20000))}}
	_, err := s.AppendMessage(ctx, sess.ID, big)
	var fe *store.DiskFullError
	if !errors.Is(err, store.ErrDiskFull) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "is full") {
		t.Fatalf("append on a full disk: %v", err)
	}
	s.Close()
	free()
	s = db(nil)
	if _, err := s.AppendWithSeq(ctx, sess.ID, big, 3); err != nil {
		t.Fatalf("append after freeing space: %v", err)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != 2 || msgs[0].PlainText() != "before" {
		t.Fatalf("after the full disk: %d messages, %v", len(msgs), err)
	}
	if got, _ := s.GetSession(ctx, sess.ID); got.MessageCount != 2 || got.LastSeq != 3 {
		t.Errorf("totals after the full disk: %d messages, last seq %d", got.MessageCount, got.LastSeq)
	}
}
