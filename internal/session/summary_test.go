package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// What front ends read of stored sessions comes through the Manager as
// Summaries carrying every field they show.
func TestManagerSummaries(t *testing.T) {
	m, _, work := setup(t)
	ctx := context.Background()
	st := m.Store()
	other := filepath.Join(work, "other")
	text := func(role message.Role, s string) message.Message {
		return message.Message{Role: role, Content: []message.Block{message.TextBlock(s)}}
	}
	cost := 0.25
	a, err := st.CreateSession(ctx, store.Session{Cwd: work, Model: "p/m", Runtime: "native", Mode: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	call := message.Message{Role: message.Assistant, Content: []message.Block{{Type: message.ToolUse, ID: "call_1", Name: "Task"}}, CostUSD: &cost}
	for _, msg := range []message.Message{text(message.User, "fix the parser"), call} {
		if _, err := st.AppendMessage(ctx, a.ID, msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetMeta(ctx, a.ID, "context", `{"tokens":5}`); err != nil {
		t.Fatal(err)
	}
	kid, err := st.CreateSession(ctx, store.Session{Cwd: work, ParentID: a.ID, ParentToolUseID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessage(ctx, kid.ID, text(message.User, "look")); err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateSession(ctx, store.Session{Cwd: other})
	if err != nil {
		t.Fatal(err)
	}

	here, err := m.List(ctx, ListOptions{Cwd: work})
	if err != nil || len(here) != 2 {
		t.Fatalf("List(work) = %+v, %v; want the session and its sub-agent", here, err)
	}
	all, err := m.List(ctx, ListOptions{})
	if err != nil || len(all) != 3 || all[0].ID != b.ID {
		t.Fatalf("List(all) = %+v, %v; want 3, the newest first", all, err)
	}
	if page, _ := m.List(ctx, ListOptions{Limit: 1, Offset: 1}); len(page) != 1 || page[0].ID != all[1].ID {
		t.Errorf("List page = %+v, want %s", page, all[1].ID)
	}

	// Ids made in the same millisecond share all but their last
	// characters (they count up), so the prefix is the shortest one no
	// other session of this test shares, and never under the minimum.
	n := len(store.SessionIDPrefix) + store.MinPrefix
	for _, other := range []string{kid.ID, b.ID} {
		for n < len(a.ID) && strings.HasPrefix(other, a.ID[:n]) {
			n++
		}
	}
	got, err := m.Find(ctx, a.ID[:n])
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != a.ID || got.Cwd != work || got.Model != "p/m" || got.Runtime != "native" || got.Mode != "plan" ||
		got.Title != "fix the parser" || got.MessageCount != 2 || got.CostUSD == nil || *got.CostUSD != cost ||
		got.Meta["context"] != `{"tokens":5}` || got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
		t.Errorf("Find = %+v", got)
	}
	if _, err := m.Find(ctx, "ses_nothere0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(unknown) = %v, want ErrNotFound", err)
	}
	if latest, err := m.Latest(ctx, work); err != nil || latest.ID != a.ID {
		t.Errorf("Latest = %s, %v; want the top-level %s", latest.ID, err, a.ID)
	}

	kids, err := m.Children(ctx, a.ID)
	if err != nil || len(kids) != 1 || kids[0].ID != kid.ID || kids[0].ParentID != a.ID || kids[0].ParentToolUseID != "call_1" {
		t.Errorf("Children = %+v, %v", kids, err)
	}
	msgs, err := m.Messages(ctx, a.ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("Messages = %d, %v", len(msgs), err)
	}
	runs, err := m.Subagents(ctx, a.ID, msgs)
	if err != nil || len(runs) != 1 || runs[0].Session.ID != kid.ID || runs[0].Session.ParentToolUseID != "call_1" || len(runs[0].Messages) != 1 {
		t.Errorf("Subagents = %+v, %v", runs, err)
	}

	fork, err := m.Fork(ctx, got, "")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == a.ID || fork.Cwd != work || fork.Model != "p/m" || fork.Title != "fix the parser" {
		t.Errorf("Fork = %+v", fork)
	}
	if copied, err := m.Messages(ctx, fork.ID); err != nil || len(copied) != 2 || copied[0].ID == msgs[0].ID {
		t.Errorf("forked messages = %+v, %v; want 2 with their own ids", copied, err)
	}

	if err := m.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Find(ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find after Delete = %v, want ErrNotFound", err)
	}
}
