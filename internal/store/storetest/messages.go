package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

func testMessageRoundTripEveryBlock(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	img := message.Block{Type: message.Image, MediaType: "image/png", ImageData: "iVBORw0KGgo="}
	msgs := []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("look <here> & \"there\"\nsecond line"), img}},
		{Role: message.Assistant, Model: "anthropic/claude-sonnet", Usage: &message.Usage{InputTokens: 10, OutputTokens: 20,
			CacheReadTokens: 30, CacheCreationTokens: 40, ReasoningTokens: 5}, CostUSD: ptr(0.0125),
			Content: []message.Block{
				{Type: message.Thinking, Text: "let me think", Signature: "EqQBCkYIBxgCKkB+sig==", Provider: "anthropic"},
				{Type: message.RedactedThinking, Data: "EmwKAhgBEgy3opaque"},
				message.TextBlock("running it"),
				{Type: message.ToolUse, ID: "toolu_1", Name: "bash", Input: json.RawMessage(`{"command": "ls -la",  "timeout":  5}`)},
				{Type: message.ToolUse, ID: "toolu_2", Name: "read", Input: json.RawMessage(`{"path":"/a<b>&c"}`)},
				{Type: message.ToolUse, ID: "toolu_3", Name: "edit", Input: json.RawMessage(`{"path": "trunc`)}, // invalid JSON
				{Type: message.ToolUse, ID: "toolu_4", Name: "noargs"},
			}},
		{Role: message.User, Content: []message.Block{
			{Type: message.ToolResult, ToolUseID: "toolu_1", Content: []message.Block{message.TextBlock("a\nb"), img}},
			{Type: message.ToolResult, ToolUseID: "toolu_2", IsError: true, Content: []message.Block{message.TextBlock("no such file")}},
		}},
		{Role: message.Assistant, Content: nil},
	}
	created := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	for i := range msgs {
		if i == 0 {
			msgs[i].ID, msgs[i].CreatedAt = "msg_custom", created
		}
		got, err := s.AppendMessage(ctx, sess.ID, msgs[i])
		if err != nil {
			t.Fatal(err)
		}
		if got.ID == "" || got.CreatedAt.IsZero() {
			t.Fatalf("id/created_at not filled: %+v", got)
		}
		msgs[i] = got
	}
	msgs[3].Content = []message.Block{} // stored as an empty list

	loaded, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != len(msgs) {
		t.Fatalf("%d messages, want %d", len(loaded), len(msgs))
	}
	for i := range msgs {
		if !reflect.DeepEqual(loaded[i], msgs[i]) {
			t.Errorf("message %d:\n got  %+v\n want %+v", i, loaded[i], msgs[i])
		}
	}
	if loaded[0].ID != "msg_custom" || loaded[0].CreatedAt != created {
		t.Errorf("custom id/time not kept: %s %v", loaded[0].ID, loaded[0].CreatedAt)
	}
	// Exact bytes, including whitespace a JSON encoder would drop.
	if got := string(loaded[1].Content[3].Input); got != `{"command": "ls -la",  "timeout":  5}` {
		t.Errorf("tool input bytes = %s", got)
	}
	if got := string(loaded[1].Content[5].Input); got != `{"path": "trunc` {
		t.Errorf("invalid tool input bytes = %s", got)
	}
	if loaded[0].Usage != nil || loaded[0].CostUSD != nil {
		t.Errorf("user message got usage/cost: %v %v", loaded[0].Usage, loaded[0].CostUSD)
	}
}

func testMessagesOrderAndTotals(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	// Created-at times out of order: position, not time, decides the order.
	base := time.Now()
	var want []string
	var wantUsage message.Usage
	wantCost := 0.0
	for i := 0; i < 20; i++ {
		m := message.Message{Role: message.Assistant, CreatedAt: base.Add(time.Duration(-i) * time.Minute),
			Content: []message.Block{message.TextBlock(fmt.Sprint(i))}}
		if i%2 == 0 {
			u := message.Usage{InputTokens: int64(i), OutputTokens: 2, CacheReadTokens: 3, CacheCreationTokens: 4, ReasoningTokens: 1}
			m.Usage, m.CostUSD = &u, ptr(0.25)
			wantUsage = wantUsage.Add(u)
			wantCost += 0.25
		}
		if _, err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprint(i))
	}
	loaded, _ := s.Messages(ctx, sess.ID)
	var got []string
	for _, m := range loaded {
		got = append(got, m.PlainText())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("order = %v", got)
	}
	after, _ := s.GetSession(ctx, sess.ID)
	if after.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", after.Usage, wantUsage)
	}
	if after.CostUSD == nil || *after.CostUSD != wantCost {
		t.Errorf("cost = %v, want %v", after.CostUSD, wantCost)
	}
	if after.MessageCount != 20 {
		t.Errorf("message count = %d", after.MessageCount)
	}
	if !after.UpdatedAt.After(sess.UpdatedAt) && !after.UpdatedAt.Equal(sess.UpdatedAt) {
		t.Errorf("updated_at not bumped")
	}

	// One assistant message with usage but no price makes the total unknown.
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.Assistant, Usage: &message.Usage{InputTokens: 1}}); err != nil {
		t.Fatal(err)
	}
	// ... and a later priced one does not make it known again.
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.Assistant, Usage: &message.Usage{InputTokens: 1}, CostUSD: ptr(1.0)}); err != nil {
		t.Fatal(err)
	}
	after, _ = s.GetSession(ctx, sess.ID)
	if after.CostUSD != nil {
		t.Errorf("cost = %v, want unknown", *after.CostUSD)
	}
	if after.Usage.InputTokens != wantUsage.InputTokens+2 {
		t.Errorf("input tokens = %d", after.Usage.InputTokens)
	}
}

func testUnpricedUserMessageKeepsCostKnown(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hi")}})
	s.AppendMessage(ctx, sess.ID, message.Message{Role: message.Assistant}) // no usage at all
	got, _ := s.GetSession(ctx, sess.ID)
	if got.CostUSD == nil || *got.CostUSD != 0 {
		t.Errorf("cost = %v, want known 0", got.CostUSD)
	}
}

func testTitleFromFirstUserMessage(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	appendText := func(role message.Role, text string) {
		t.Helper()
		if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: role, Content: []message.Block{message.TextBlock(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	// A tool-result-only user message has no text: no title yet.
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User,
		Content: []message.Block{{Type: message.ToolResult, ToolUseID: "x", Content: []message.Block{message.TextBlock("out")}}}}); err != nil {
		t.Fatal(err)
	}
	appendText(message.Assistant, "assistant text is not a title")
	long := strings.Repeat("é", 100)
	appendText(message.User, "\n\n   Fix   the bug\tin main.go  \nmore detail")
	appendText(message.User, long)
	got, _ := s.GetSession(ctx, sess.ID)
	if got.Title != "Fix the bug in main.go" {
		t.Errorf("title = %q", got.Title)
	}

	other := newSession(t, s, "/p")
	s.AppendMessage(ctx, other.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(long)}})
	got, _ = s.GetSession(ctx, other.ID)
	if n := len([]rune(got.Title)); n != 80 || !strings.HasSuffix(got.Title, "…") {
		t.Errorf("long title = %q (%d runes)", got.Title, n)
	}

	titled, _ := s.CreateSession(ctx, store.Session{Cwd: "/p", Title: "given"})
	s.AppendMessage(ctx, titled.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hello")}})
	got, _ = s.GetSession(ctx, titled.ID)
	if got.Title != "given" {
		t.Errorf("title overwritten: %q", got.Title)
	}
}

func testAppendToMissingSession(t *testing.T, db DB) {
	s := db(nil)
	_, err := s.AppendMessage(context.Background(), "ses_missing", message.Message{Role: message.User})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("err = %v, want store.ErrNotFound", err)
	}
	if _, err := s.Messages(context.Background(), "ses_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages err = %v, want store.ErrNotFound", err)
	}
	sess := newSession(t, s, "/p")
	if msgs, err := s.Messages(context.Background(), sess.ID); err != nil || len(msgs) != 0 {
		t.Errorf("empty session: %v, %v", msgs, err)
	}
}

func testAppendDuplicateIDFailsCleanly(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	m := message.Message{ID: "msg_dup", Role: message.Assistant, Usage: &message.Usage{InputTokens: 5}, CostUSD: ptr(1.0)}
	if _, err := s.AppendMessage(ctx, sess.ID, m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, sess.ID, m); err == nil {
		t.Fatal("duplicate message id accepted")
	}
	// The failed append rolled back its totals too.
	got, _ := s.GetSession(ctx, sess.ID)
	if got.MessageCount != 1 || got.Usage.InputTokens != 5 || *got.CostUSD != 1 {
		t.Errorf("totals after failed append: %+v", got)
	}
}

func testAppendAfterCloseFails(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("again")}}); err == nil {
		t.Fatal("append on a closed store succeeded")
	}
}
