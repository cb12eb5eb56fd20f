package storetest

import (
	"context"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// A sub-agent session keeps the tool call that started it, across a
// reopen of the database, and Children lists a session's sub-agents in
// the order they started.
func testChildKeepsParentToolUseAcrossReopen(t *testing.T, db DB) {
	ctx := context.Background()
	s := db(nil)
	parent, err := s.CreateSession(ctx, store.Session{Cwd: "/p", Runtime: "native"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: parent.ID, ParentToolUseID: "toolu_a1"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: parent.ID, ParentToolUseID: "toolu_a2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentToolUseID: "toolu_x"}); err == nil {
		t.Error("a tool call link without a parent session was stored")
	}
	s.Close()

	s = db(nil)
	got, err := s.GetSession(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ParentID != parent.ID || got.ParentToolUseID != "toolu_a1" {
		t.Errorf("child after reopen: parent %q tool call %q", got.ParentID, got.ParentToolUseID)
	}
	kids, err := s.Children(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 2 || kids[0].ID != first.ID || kids[1].ID != second.ID || kids[1].ParentToolUseID != "toolu_a2" {
		t.Errorf("children %+v", kids)
	}
	if top, _ := s.GetSession(ctx, parent.ID); top.ParentToolUseID != "" {
		t.Errorf("top-level session has tool call %q", top.ParentToolUseID)
	}
	if none, err := s.Children(ctx, first.ID); err != nil || len(none) != 0 {
		t.Errorf("children of a leaf: %v %v", none, err)
	}
}

// SubagentRuns follows the calls in the messages given: a child whose call
// is not among them is left out, a grandchild comes under its child.
func testSubagentRunsFollowCalls(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	parent, _ := s.CreateSession(ctx, store.Session{Cwd: "/p"})
	use := func(id string) message.Message {
		return message.Message{Role: message.Assistant, Content: []message.Block{{Type: message.ToolUse, ID: id, Name: "Agent", Input: []byte(`{}`)}}}
	}
	child, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: parent.ID, ParentToolUseID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: parent.ID, ParentToolUseID: "a2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: parent.ID}); err != nil { // stored before the link
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, child.ID, use("c1")); err != nil {
		t.Fatal(err)
	}
	grand, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: child.ID, ParentToolUseID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.SubagentRuns(ctx, parent.ID, []message.Message{use("a1")})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Session.ID != child.ID || len(runs[0].Messages) != 1 {
		t.Fatalf("runs %+v, want only a1's child with its message", runs)
	}
	if g := runs[0].Subagents; len(g) != 1 || g[0].Session.ID != grand.ID || g[0].Session.ParentToolUseID != "c1" {
		t.Errorf("grandchildren %+v", g)
	}
	if none, err := s.SubagentRuns(ctx, parent.ID, nil); err != nil || len(none) != 0 {
		t.Errorf("runs for no messages: %v %v", none, err)
	}
}
