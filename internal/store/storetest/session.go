package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

func testCreateAndGetSession(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	created, err := s.CreateSession(ctx, store.Session{Cwd: "/work/proj/", Model: "openai/gpt", Runtime: "native",
		Mode: "default", LastSeq: 7, Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.ID, "ses_") || len(created.ID) != 30 {
		t.Errorf("id %q: want ses_ + 26-char ULID", created.ID)
	}
	if created.CreatedAt.IsZero() || !created.UpdatedAt.Equal(created.CreatedAt) {
		t.Errorf("timestamps not filled: %+v", created)
	}
	got, err := s.GetSession(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cwd != "/work/proj" || got.Model != "openai/gpt" || got.Runtime != "native" || got.Mode != "default" ||
		got.LastSeq != 7 || got.Meta["k"] != "v" || got.MessageCount != 0 || got.ParentID != "" {
		t.Errorf("got %+v", got)
	}
	if !got.CreatedAt.Equal(created.CreatedAt) || got.CreatedAt != created.CreatedAt {
		t.Errorf("created_at %v, want %v", got.CreatedAt, created.CreatedAt)
	}
	if got.CostUSD == nil || *got.CostUSD != 0 {
		t.Errorf("new session cost = %v, want known 0", got.CostUSD)
	}
}

func testSessionIDsSortByCreation(t *testing.T, db DB) {
	s := db(nil)
	var prev string
	for i := 0; i < 50; i++ {
		id := newSession(t, s, "/p").ID
		if id <= prev {
			t.Fatalf("id %s not after %s", id, prev)
		}
		prev = id
	}
}

func testGetSessionNotFound(t *testing.T, db DB) {
	s := db(nil)
	newSession(t, s, "/p")
	for _, id := range []string{"ses_nope", "", "zzzzzzzzzz", "ses_zzzzzzzzzzzzzzz", "abc"} {
		_, err := s.GetSession(context.Background(), id)
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetSession(%q) err = %v, want store.ErrNotFound", id, err)
		}
	}
}

func testGetSessionByPrefix(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	for _, id := range []string{"ses_abcdef111", "ses_abcdef222", "ses_abcxyz333"} {
		if _, err := s.CreateSession(ctx, store.Session{ID: id, Cwd: "/p"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"ses_abcdef111", "ses_abcdef111", nil},
		{"ses_abcdef1", "ses_abcdef111", nil},
		{"abcdef2", "ses_abcdef222", nil},      // without the ses_ start
		{"ABCXYZ", "ses_abcxyz333", nil},       // case-insensitive without ses_
		{"abcdef", "", store.ErrAmbiguous},     // two matches
		{"ses_abcdef", "", store.ErrAmbiguous}, // two matches
		{"ses_abc", "", store.ErrNotFound},     // too short
		{"abcde", "", store.ErrNotFound},       // too short
		{"weird?", "", store.ErrBadID},         // no id holds glob characters
		{"weird*[id", "", store.ErrBadID},
		{"ses_abcdeg", "", store.ErrNotFound},
	}
	for _, tt := range tests {
		got, err := s.GetSession(ctx, tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("GetSession(%q) err = %v, want %v", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.ID != tt.want {
			t.Errorf("GetSession(%q) = %q, %v; want %q", tt.in, got.ID, err, tt.want)
		}
	}
	_, err := s.GetSession(ctx, "abcdef")
	if err == nil || !strings.Contains(err.Error(), "ses_abcdef111") || !strings.Contains(err.Error(), "ses_abcdef222") {
		t.Errorf("ambiguous error should list the candidates: %v", err)
	}
}

func testListSessionsOrderAndPaging(t *testing.T, db DB) {
	ctx := context.Background()
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s := db(func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock })
	a := newSession(t, s, "/a")
	b := newSession(t, s, "/b")
	c := newSession(t, s, "/a")
	// Activity on a makes it the newest.
	if _, err := s.AppendMessage(ctx, a.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	ids := func(ss []store.Session) []string {
		var out []string
		for _, x := range ss {
			out = append(out, x.ID)
		}
		return out
	}
	all, err := s.ListSessions(ctx, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(ids(all), ","), strings.Join([]string{a.ID, c.ID, b.ID}, ","); got != want {
		t.Errorf("all = %s, want %s", got, want)
	}
	inA, _ := s.ListSessions(ctx, store.ListOptions{Cwd: "/a/"})
	if got, want := strings.Join(ids(inA), ","), a.ID+","+c.ID; got != want {
		t.Errorf("cwd /a = %s, want %s", got, want)
	}
	page, _ := s.ListSessions(ctx, store.ListOptions{Limit: 1, Offset: 1})
	if len(page) != 1 || page[0].ID != c.ID {
		t.Errorf("page = %v, want [%s]", ids(page), c.ID)
	}
	none, _ := s.ListSessions(ctx, store.ListOptions{Cwd: "/nowhere"})
	if len(none) != 0 {
		t.Errorf("cwd /nowhere = %v", ids(none))
	}

	latest, err := s.LatestSession(ctx, "/a")
	if err != nil || latest.ID != a.ID {
		t.Errorf("LatestSession(/a) = %s, %v; want %s", latest.ID, err, a.ID)
	}
	if _, err := s.LatestSession(ctx, "/nowhere"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestSession(/nowhere) err = %v, want store.ErrNotFound", err)
	}
	// A newer sub-agent session is not what --continue resumes.
	if _, err := s.CreateSession(ctx, store.Session{Cwd: "/a", ParentID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if latest, _ := s.LatestSession(ctx, "/a"); latest.ID != a.ID {
		t.Errorf("LatestSession picked sub-agent session %s", latest.ID)
	}
}

func testUpdateSession(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	title, mode, seq := "renamed", "plan", int64(42)
	if err := s.UpdateSession(ctx, sess.ID, store.SessionUpdate{Title: &title, Mode: &mode, LastSeq: &seq}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetSession(ctx, sess.ID)
	if got.Title != title || got.Mode != mode || got.LastSeq != seq || got.Model != sess.Model || got.Runtime != sess.Runtime {
		t.Errorf("after update: %+v", got)
	}
	if got.UpdatedAt.Before(sess.UpdatedAt) {
		t.Errorf("updated_at went back")
	}
	if err := s.UpdateSession(ctx, "ses_missing", store.SessionUpdate{Title: &title}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of missing session err = %v", err)
	}
}

func testParentMustExist(t *testing.T, db DB) {
	s := db(nil)
	_, err := s.CreateSession(context.Background(), store.Session{Cwd: "/p", ParentID: "ses_missing"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("err = %v, want store.ErrNotFound", err)
	}
}

func testDeleteSessionCascades(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	child, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	other := newSession(t, s, "/p")
	for _, id := range []string{sess.ID, child.ID, other.ID} {
		for i := 0; i < 3; i++ {
			if _, err := s.AppendMessage(ctx, id, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("x")}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetMeta(ctx, id, "k", "v"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{sess.ID, child.ID} {
		if _, err := s.GetSession(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("session %s still there: %v", id, err)
		}
		if _, err := s.Messages(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("messages of %s: err = %v, want store.ErrNotFound", id, err)
		}
	}
	if msgs, err := s.Messages(ctx, other.ID); err != nil || len(msgs) != 3 {
		t.Errorf("the other session's messages: %d, %v", len(msgs), err)
	}
	if v, err := s.Meta(ctx, other.ID, "k"); err != nil || v != "v" {
		t.Errorf("the other session's meta: %q, %v", v, err)
	}
	if err := s.DeleteSession(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete err = %v, want store.ErrNotFound", err)
	}
}

func testMeta(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	if v, err := s.Meta(ctx, sess.ID, "claude_session_id"); err != nil || v != "" {
		t.Errorf("unset meta = %q, %v", v, err)
	}
	for _, v := range []string{"abc", "def"} {
		if err := s.SetMeta(ctx, sess.ID, "claude_session_id", v); err != nil {
			t.Fatal(err)
		}
	}
	todos := `[{"content":"x","status":"pending"}]`
	if err := s.SetMeta(ctx, sess.ID, "todos", todos); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Meta(ctx, sess.ID, "claude_session_id"); v != "def" {
		t.Errorf("meta = %q, want def", v)
	}
	got, _ := s.GetSession(ctx, sess.ID)
	if len(got.Meta) != 2 || got.Meta["todos"] != todos {
		t.Errorf("session meta = %v", got.Meta)
	}
	if _, err := s.Meta(ctx, "ses_missing", "k"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Meta of missing session err = %v", err)
	}
	if err := s.SetMeta(ctx, "ses_missing", "k", "v"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetMeta of missing session err = %v", err)
	}
}
