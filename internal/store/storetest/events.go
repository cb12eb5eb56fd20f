package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

func evs(from, to int64, tag string) []store.StoredEvent {
	var out []store.StoredEvent
	for i := from; i <= to; i++ {
		out = append(out, store.StoredEvent{Seq: i, Type: "text", JSON: fmt.Appendf(nil, `{"seq":%d,"text":%q}`, i, tag)})
	}
	return out
}

// testEventsLog: events come back by seq, after a given seq, bounded, and
// a (session, seq) stored twice keeps its first copy.
func testEventsLog(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	other := newSession(t, s, "/p")
	if n, err := s.LastEventSeq(ctx, sess.ID); err != nil || n != 0 {
		t.Fatalf("LastEventSeq of an empty log = %d, %v", n, err)
	}
	if err := s.AppendEvents(ctx, sess.ID, evs(1, 3, "first")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, other.ID, evs(1, 9, "other")); err != nil {
		t.Fatal(err)
	}
	// A redone step writes 3 again with 4 and 5: 3 keeps its first copy.
	if err := s.AppendEvents(ctx, sess.ID, evs(3, 5, "again")); err != nil {
		t.Fatal(err)
	}
	all, err := s.EventsAfter(ctx, sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 5 {
		t.Fatalf("got %d events, want 5", len(all))
	}
	for i, e := range all {
		want := "first"
		if e.Seq > 3 {
			want = "again"
		}
		if e.Seq != int64(i+1) || e.Type != "text" || string(e.JSON) != fmt.Sprintf(`{"seq":%d,"text":%q}`, e.Seq, want) {
			t.Errorf("event %d = %d %s %s", i, e.Seq, e.Type, e.JSON)
		}
	}
	some, err := s.EventsAfter(ctx, sess.ID, 2, 2)
	if err != nil || len(some) != 2 || some[0].Seq != 3 || some[1].Seq != 4 {
		t.Errorf("EventsAfter(2, limit 2) = %v, %v", some, err)
	}
	if n, err := s.LastEventSeq(ctx, sess.ID); err != nil || n != 5 {
		t.Errorf("LastEventSeq = %d, %v; want 5", n, err)
	}
	if err := s.AppendEvents(ctx, "ses_missing", evs(1, 1, "x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AppendEvents to a missing session err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if left, err := s.EventsAfter(ctx, sess.ID, 0, 0); err != nil || len(left) != 0 {
		t.Errorf("events of a deleted session = %d, %v", len(left), err)
	}
	if left, _ := s.EventsAfter(ctx, other.ID, 0, 0); len(left) != 9 {
		t.Errorf("the other session kept %d events, want 9", len(left))
	}
}

// testWatchEventsWakes: a watcher on a handle hears appends made through
// it, with the session and the last seq.
func testWatchEventsWakes(t *testing.T, db DB) {
	s := db(nil)
	sess := newSession(t, s, "/p")
	got := watch(t, s)
	// The watcher may need a moment to start listening; append until heard.
	deadline := time.Now().Add(10 * time.Second)
	for seq := int64(1); ; seq++ {
		if err := s.AppendEvents(context.Background(), sess.ID, evs(seq, seq, "x")); err != nil {
			t.Fatal(err)
		}
		select {
		case w := <-got:
			if w.id != sess.ID || w.seq < 1 || w.seq > seq {
				t.Fatalf("woken with %s:%d, want %s:1..%d", w.id, w.seq, sess.ID, seq)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no wake-up within 10 s of appending")
		}
	}
}

type wake struct {
	id  string
	seq int64
}

// watch runs s.WatchEvents until the test ends and returns what it hears.
func watch(t *testing.T, s store.Store) <-chan wake {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan wake, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = s.WatchEvents(ctx, func(id string, seq int64) {
			if id != "" {
				select {
				case ch <- wake{id, seq}:
				default:
				}
			}
		})
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return ch
}

// testEventsHeldByLease: events appended under a lease holder are stored
// while it holds the session's lease (expired or not, until another takes
// it), and refused with ErrLeaseLost, storing none, once another holder
// took it or none holds it.
func testEventsHeldByLease(t *testing.T, db DB) {
	s := db(nil)
	h, ok := s.(store.HeldEvents)
	if !ok {
		t.Fatal("the backend does not implement store.HeldEvents")
	}
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	a := store.Holder{ID: "a", PID: 100, Host: "h1"}
	b := store.Holder{ID: "b", PID: 200, Host: "h1"}
	if err := h.AppendEventsHeld(ctx, sess.ID, "a", evs(1, 1, "no lease")); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("append under a lease nobody holds: %v, want ErrLeaseLost", err)
	}
	if err := s.AcquireLease(ctx, sess.ID, a, time.Millisecond, func(int) bool { return false }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // expired, not taken: still a's
	if err := h.AppendEventsHeld(ctx, sess.ID, "a", evs(1, 2, "held")); err != nil {
		t.Fatalf("append under the holder's lease: %v", err)
	}
	if err := s.AcquireLease(ctx, sess.ID, b, time.Minute, func(int) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if err := h.AppendEventsHeld(ctx, sess.ID, "a", evs(3, 4, "late")); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("append under a lease another took: %v, want ErrLeaseLost", err)
	}
	if n, err := s.LastEventSeq(ctx, sess.ID); err != nil || n != 2 {
		t.Fatalf("after a refused append the log ends at %d (%v), want 2", n, err)
	}
}
