package sqlite

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// What the conformance suite cannot see through the contract: the rows
// themselves.

// A tool call's compact input stays queryable as JSON in the file.
func TestContentQueryableAsJSON(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	m, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.Assistant, Content: []message.Block{
		message.TextBlock("run"),
		{Type: message.ToolUse, ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{ "command" : "ls -la" }`)}}})
	if err != nil {
		t.Fatal(err)
	}
	var cmd string
	if err := s.db.QueryRow(`SELECT json_extract(content, '$[1].input.command') FROM messages WHERE id = ?`, m.ID).Scan(&cmd); err != nil || cmd != "ls -la" {
		t.Errorf("json_extract = %q, %v", cmd, err)
	}
}

// Deleting a session leaves no row of it, its sub-agents, messages,
// meta, checkpoints, known files or rewound messages; another session's
// rows stay.
func TestDeleteLeavesNoRows(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	child, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	other := newSession(t, s, "/p")
	for _, id := range []string{sess.ID, child.ID, other.ID} {
		cp, err := s.CreateCheckpoint(ctx, id, "p", "")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if _, err := s.AppendMessage(ctx, id, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("x")}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetMeta(ctx, id, "k", "v"); err != nil {
			t.Fatal(err)
		}
		later, err := s.CreateCheckpoint(ctx, id, "q", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddCheckpointFiles(ctx, id, cp.Number, []store.CheckpointFile{{Path: "/p/a", State: store.FileSaved, Hash: "h1"}}, map[string]string{"/p/a": "h2"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RewindConversation(ctx, id, later.Number, cp.Position+2, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"sessions", "messages", "session_meta", "checkpoints", "checkpoint_files", "checkpoint_known", "rewound_messages"} {
		var n int
		col := "session_id"
		if table == "sessions" {
			col = "id"
		}
		if err := s.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE `+col+` != ?`, other.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows of the deleted sessions left", table, n)
		}
		if err := s.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE `+col+` = ?`, other.ID).Scan(&n); err != nil || n == 0 {
			t.Errorf("%s: the other session's rows are gone (%v)", table, err)
		}
	}
}

// A compaction boundary a rewind sets aside keeps its kind and facts.
func TestRewoundBoundaryKeepsItsFacts(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	cp, err := s.CreateCheckpoint(ctx, sess.ID, "p", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("one")}},
		{Role: message.User, Kind: message.KindCompaction, Content: []message.Block{message.TextBlock("summary")}, Compaction: &message.Compaction{}},
	} {
		if _, err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RewindConversation(ctx, sess.ID, cp.Number, cp.Position, nil); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow(`SELECT COUNT(*) FROM rewound_messages WHERE session_id = ? AND kind = 'compaction' AND compaction IS NOT NULL`, sess.ID).Scan(&n)
	if n != 1 {
		t.Errorf("%d compaction boundaries set aside with their facts, want 1", n)
	}
}
