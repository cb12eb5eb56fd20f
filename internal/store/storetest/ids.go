package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// An id that could leave a folder never enters the store.
func testRefusesBadSessionIDs(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	if _, err := s.CreateSession(ctx, store.Session{ID: "../../.."}); !errors.Is(err, store.ErrBadID) {
		t.Errorf("create ../../..: %v", err)
	}
	if _, err := s.GetSession(ctx, "../../.."); !errors.Is(err, store.ErrBadID) {
		t.Errorf("get ../../..: %v", err)
	}
	parent := newSession(t, s, "/p")
	if _, err := s.CreateSession(ctx, store.Session{ParentID: "../" + parent.ID}); !errors.Is(err, store.ErrBadID) {
		t.Errorf("create with parent ../: %v", err)
	}
}

// The session's last event number rises with AppendWithSeq and
// UpdateSession and never goes back.
func testLastSeqOnlyRises(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	m := message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}
	if _, err := s.AppendWithSeq(ctx, sess.ID, m, 12); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendWithSeq(ctx, sess.ID, m, 0); err != nil { // 0 leaves it
		t.Fatal(err)
	}
	if err := s.UpdateSession(ctx, sess.ID, store.SessionUpdate{LastSeq: ptr(int64(5))}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.LastSeq != 12 || got.MessageCount != 2 {
		t.Errorf("last seq %d, %d messages; want 12 and 2", got.LastSeq, got.MessageCount)
	}
	if err := s.UpdateSession(ctx, sess.ID, store.SessionUpdate{LastSeq: ptr(int64(20))}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetSession(ctx, sess.ID); got.LastSeq != 20 {
		t.Errorf("last seq %d after raising it to 20", got.LastSeq)
	}
	if _, err := s.AppendWithSeq(ctx, "ses_missing", m, 3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("append to a missing session: %v", err)
	}
}
