package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// Two handles on one database behave like two processes (or two
// replicas of a server): they contend in the database itself.
func testConcurrentWritersTwoStores(t *testing.T, db DB) {
	ctx := context.Background()
	stores := [2]store.Store{db(nil), db(nil)}
	shared := newSession(t, stores[0], "/p")
	own := [2]store.Session{newSession(t, stores[0], "/p"), newSession(t, stores[1], "/p")}

	const goroutines, perG = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*goroutines*perG)
	for si, s := range stores {
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perG; i++ {
					text := fmt.Sprintf("s%d g%d i%d", si, g, i)
					m := message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(text)},
						Usage: &message.Usage{InputTokens: 1, OutputTokens: 2}, CostUSD: ptr(0.5)}
					target := shared.ID
					if i%2 == 1 {
						target = own[si].ID
					}
					if _, err := s.AppendMessage(ctx, target, m); err != nil {
						errs <- err
					}
					// SetMeta reads before it writes: the pattern that fails
					// with SQLITE_BUSY unless transactions begin IMMEDIATE.
					if err := s.SetMeta(ctx, shared.ID, fmt.Sprint("s", si), text); err != nil {
						errs <- err
					}
					// Readers run alongside the writers.
					if i%5 == 0 {
						if _, err := s.Messages(ctx, target); err != nil {
							errs <- err
						}
						if _, err := s.ListSessions(ctx, store.ListOptions{Cwd: "/p"}); err != nil {
							errs <- err
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	perSharedG, perOwnG := (perG+1)/2, perG/2
	check := func(id string, want int) {
		t.Helper()
		msgs, err := stores[1].Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range msgs {
			if seen[m.PlainText()] {
				t.Errorf("duplicate message %q", m.PlainText())
			}
			seen[m.PlainText()] = true
		}
		if len(msgs) != want {
			t.Errorf("session %s: %d messages, want %d", id, len(msgs), want)
		}
		sess, _ := stores[0].GetSession(ctx, id)
		if sess.MessageCount != want || sess.Usage.InputTokens != int64(want) || sess.Usage.OutputTokens != int64(2*want) ||
			sess.CostUSD == nil || *sess.CostUSD != 0.5*float64(want) {
			t.Errorf("session %s totals: count %d usage %+v cost %v; want %d messages", id, sess.MessageCount, sess.Usage, sess.CostUSD, want)
		}
		// The next checkpoint's position follows the last message's: no
		// position was lost or taken twice.
		cp, err := stores[0].CreateCheckpoint(ctx, id, "after", "")
		if err != nil {
			t.Fatal(err)
		}
		if cp.Position != int64(want)+1 {
			t.Errorf("next position %d, want %d", cp.Position, want+1)
		}
	}
	check(shared.ID, 2*goroutines*perSharedG)
	check(own[0].ID, goroutines*perOwnG)
	check(own[1].ID, goroutines*perOwnG)
}
