package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// A replica's watcher hears another replica's append (LISTEN/NOTIFY over
// two pools, as two processes would have).
func TestWatchEventsHearsAnotherReplica(t *testing.T) {
	url := pg.Database(t)
	ctx := context.Background()
	open := func() *Store {
		s, err := Open(ctx, url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	sess, err := a.CreateSession(ctx, store.Session{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heard := make(chan int64, 100)
	go b.WatchEvents(wctx, func(id string, seq int64) {
		if id == sess.ID {
			heard <- seq
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for seq := int64(1); time.Now().Before(deadline); seq++ {
		if err := a.AppendEvents(ctx, sess.ID, []store.StoredEvent{{Seq: seq, Type: "text", JSON: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-heard:
			if got < 1 || got > seq {
				t.Fatalf("heard seq %d, appended 1..%d", got, seq)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatal("replica b heard nothing of replica a's appends within 10 s")
}

// A watcher says fn("", 0) once its LISTEN is up, so an append committed
// while it was connecting (notified to nobody here) is re-read; an
// append after that is heard.
func TestWatchEventsSaysReReadOnceListening(t *testing.T) {
	url := pg.Database(t)
	ctx := context.Background()
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sess, err := s.CreateSession(ctx, store.Session{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, sess.ID, []store.StoredEvent{{Seq: 1, Type: "text", JSON: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heard := make(chan string, 100)
	go s.WatchEvents(wctx, func(id string, _ int64) { heard <- id })
	select {
	case id := <-heard:
		if id != "" {
			t.Fatalf("first wake-up for session %q, want the re-read (\"\") once listening", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no re-read wake-up within 20 s of watching: the append made before the watch is never re-read")
	}
	if err := s.AppendEvents(ctx, sess.ID, []store.StoredEvent{{Seq: 2, Type: "text", JSON: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-heard:
		if id != sess.ID {
			t.Fatalf("woken for %q, want %s", id, sess.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an append made after the re-read wake-up was not heard: the watch was not listening yet")
	}
}
