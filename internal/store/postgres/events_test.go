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
