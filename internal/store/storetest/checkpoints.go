package storetest

import (
	"context"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// The conversation is cut by message position: messages from the cut on
// move aside (kept until the session is deleted), the count follows,
// checkpoints from the one rewound to on go, meta is set, and the next
// checkpoint and message continue from the cut.
func testRewindConversationCutsByPosition(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	add := func(role message.Role, text string) {
		t.Helper()
		if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: role, Content: []message.Block{message.TextBlock(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	var cps []store.Checkpoint
	for _, p := range []string{"one", "two", "three"} {
		cp, err := s.CreateCheckpoint(ctx, sess.ID, p, `{"k":"`+p+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		cps = append(cps, cp)
		add(message.User, p)
		add(message.Assistant, "re "+p)
	}
	if cps[1].Number != 2 || cps[1].Position != 3 || cps[2].Position != 5 {
		t.Fatalf("checkpoints %+v", cps)
	}
	if err := s.AddCheckpointFiles(ctx, sess.ID, 2, []store.CheckpointFile{{Path: "/p/a", State: store.FileSaved, Hash: "h1"}}, map[string]string{"/p/a": "h2"}); err != nil {
		t.Fatal(err)
	}
	// The first record of a path in a checkpoint wins.
	if err := s.AddCheckpointFiles(ctx, sess.ID, 2, []store.CheckpointFile{{Path: "/p/a", State: store.FileSaved, Hash: "later"}}, nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.RewindConversation(ctx, sess.ID, 2, cps[1].Position, map[string]string{"claude_session_id": "x"})
	if err != nil || n != 4 {
		t.Fatalf("moved %d, %v", n, err)
	}
	msgs, _ := s.Messages(ctx, sess.ID)
	if len(msgs) != 2 || msgs[1].PlainText() != "re one" {
		t.Fatalf("kept %d messages", len(msgs))
	}
	got, _ := s.GetSession(ctx, sess.ID)
	if got.MessageCount != 2 || got.Meta["claude_session_id"] != "x" {
		t.Errorf("session after rewind: count %d meta %v", got.MessageCount, got.Meta)
	}
	if aside, _ := s.RewoundMessageCount(ctx, sess.ID); aside != 4 {
		t.Errorf("%d messages set aside", aside)
	}
	left, _ := s.Checkpoints(ctx, sess.ID)
	if len(left) != 1 || left[0].Number != 1 {
		t.Errorf("checkpoints left: %+v", left)
	}
	next, _ := s.CreateCheckpoint(ctx, sess.ID, "again", "")
	add(message.User, "again")
	msgs, _ = s.Messages(ctx, sess.ID)
	if next.Number != 2 || next.Position != 3 || len(msgs) != 3 {
		t.Errorf("after the cut: checkpoint %+v, %d messages", next, len(msgs))
	}
	// A checkpoint whose turn stored nothing is dropped; one with messages stays.
	empty, _ := s.CreateCheckpoint(ctx, sess.ID, "failed", "")
	if err := s.DropEmptyCheckpoint(ctx, sess.ID, empty.Number); err != nil {
		t.Fatal(err)
	}
	if err := s.DropEmptyCheckpoint(ctx, sess.ID, next.Number); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.Checkpoints(ctx, sess.ID); len(left) != 2 {
		t.Errorf("checkpoints after dropping the empty one: %d, want 2", len(left))
	}
	// Deleting the session deletes the set-aside messages and checkpoints.
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RewoundMessageCount(ctx, sess.ID); err != nil || n != 0 {
		t.Errorf("%d rewound messages left after deleting the session (%v)", n, err)
	}
	if known, err := s.KnownFiles(ctx, sess.ID); err != nil || len(known) != 0 {
		t.Errorf("known files left after deleting the session: %v (%v)", known, err)
	}
	if hashes, err := s.CheckpointHashes(ctx); err != nil || len(hashes) != 0 {
		t.Errorf("checkpoint files left after deleting the session: %v (%v)", hashes, err)
	}
}

func testPruneCheckpointsKeepsNewest(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	for i := 0; i < 5; i++ {
		if _, err := s.CreateCheckpoint(ctx, sess.ID, "p", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.PruneCheckpoints(ctx, sess.ID, 2); err != nil || n != 3 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	left, _ := s.Checkpoints(ctx, sess.ID)
	if len(left) != 2 || left[0].Number != 4 {
		t.Errorf("left %+v", left)
	}
}

// A compaction boundary after the cut goes with the messages it summarised
// (kept aside, kind and all); one before the cut stays.
func testRewindConversationDropsLaterCompactionBoundaries(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	add := func(m message.Message) {
		t.Helper()
		if _, err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	text := func(role message.Role, s string) message.Message {
		return message.Message{Role: role, Content: []message.Block{message.TextBlock(s)}}
	}
	boundary := func(s string) message.Message {
		m := text(message.User, s)
		m.Kind, m.Compaction = message.KindCompaction, &message.Compaction{}
		return m
	}
	add(text(message.User, "one"))
	add(text(message.Assistant, "re one"))
	add(boundary("summary of one"))
	cp, err := s.CreateCheckpoint(ctx, sess.ID, "two", "")
	if err != nil {
		t.Fatal(err)
	}
	add(text(message.User, "two"))
	add(text(message.Assistant, "re two"))
	add(boundary("summary of one and two"))
	add(text(message.User, "three"))
	if _, err := s.RewindConversation(ctx, sess.ID, cp.Number, cp.Position, nil); err != nil {
		t.Fatal(err)
	}
	msgs, _ := s.Messages(ctx, sess.ID)
	var kinds []string
	for _, m := range msgs {
		kinds = append(kinds, string(m.Kind)+":"+m.PlainText())
	}
	if len(msgs) != 3 || msgs[2].Kind != message.KindCompaction || msgs[2].PlainText() != "summary of one" {
		t.Errorf("kept %v", kinds)
	}

}
