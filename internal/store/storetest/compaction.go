package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
)

// A compaction boundary keeps its kind and details, counts its summary
// call's usage and cost, does not become the title, and an unpriced one
// makes the session's cost unknown.
func testCompactionBoundaryRoundTrip(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("first prompt")}}); err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	c := &message.Compaction{KeepFrom: "msg_x", Trigger: "overflow", TokensBefore: 51000, TokensAfter: 4000, Model: "anthropic/claude-haiku-4-5", Focus: "the API"}
	b := message.Message{Role: message.User, Kind: message.KindCompaction, Compaction: c,
		Content: []message.Block{message.TextBlock("summary text")}, Usage: &message.Usage{InputTokens: 900, OutputTokens: 100}, CostUSD: &cost}
	if _, err := s.AppendMessage(ctx, sess.ID, b); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages: %v %v", msgs, err)
	}
	if msgs[0].Kind != "" || msgs[0].Compaction != nil {
		t.Errorf("ordinary message: %+v", msgs[0])
	}
	if msgs[1].Kind != message.KindCompaction || !reflect.DeepEqual(msgs[1].Compaction, c) || msgs[1].PlainText() != "summary text" {
		t.Errorf("boundary: %+v", msgs[1])
	}
	got, _ := s.GetSession(ctx, sess.ID)
	if got.Title != "first prompt" || got.Usage.InputTokens != 900 || got.CostUSD == nil || *got.CostUSD != 0.25 {
		t.Errorf("session: title %q usage %+v cost %v", got.Title, got.Usage, got.CostUSD)
	}
	b.Compaction, b.CostUSD = &message.Compaction{Trigger: "auto"}, nil
	if _, err := s.AppendMessage(ctx, sess.ID, b); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.GetSession(ctx, sess.ID); got.CostUSD != nil {
		t.Errorf("an unpriced summary must make the cost unknown: %v", *got.CostUSD)
	}
}
