package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

func testBridgeBindings(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	if _, err := s.Binding(ctx, "telegram", "42"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("binding of an unbound chat: %v, want ErrNotFound", err)
	}
	b := store.BridgeBinding{Platform: "telegram", Chat: "42", SessionID: "ses_a", Cwd: "/w", Model: "p/m", Mode: "normal"}
	if err := s.PutBinding(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.SessionID, b.Model = "ses_b", "q/n"
	if err := s.PutBinding(ctx, b); err != nil {
		t.Fatal(err)
	}
	// The same chat id on another platform is another chat.
	if err := s.PutBinding(ctx, store.BridgeBinding{Platform: "slack", Chat: "42", SessionID: "ses_c", Cwd: "/x"}); err != nil {
		t.Fatal(err)
	}
	got, err := db(nil).Binding(ctx, "telegram", "42") // another handle sees it
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "ses_b" || got.Model != "q/n" || got.Mode != "normal" || got.Cwd != "/w" || got.UpdatedAt.IsZero() {
		t.Errorf("binding = %+v, want the second one put", got)
	}
	if err := s.PutBinding(ctx, store.BridgeBinding{Platform: "telegram", Chat: "1"}); err == nil {
		t.Error("a binding without a session was stored")
	}
	if err := s.DeleteBinding(ctx, "telegram", "42"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Binding(ctx, "telegram", "42"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("binding after delete: %v, want ErrNotFound", err)
	}
	if got, err := s.Binding(ctx, "slack", "42"); err != nil || got.SessionID != "ses_c" {
		t.Errorf("the other platform's binding = %+v, %v", got, err)
	}
	if err := s.DeleteBinding(ctx, "telegram", "42"); err != nil {
		t.Errorf("deleting an unbound chat: %v", err)
	}
}

func testBridgeUpdatesTakenOnce(t *testing.T, db DB) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	ctx := context.Background()
	a, b := db(now), db(now)
	// Two handles race for the same ids: each id is taken exactly once.
	const n = 20
	var mu sync.Mutex
	taken := map[string]int{}
	var wg sync.WaitGroup
	for _, s := range []store.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				id := string(rune('a' + i))
				ok, err := s.TakeUpdate(ctx, "telegram", id)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					taken[id]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(taken) != n {
		t.Errorf("%d ids taken, want %d", len(taken), n)
	}
	for id, c := range taken {
		if c != 1 {
			t.Errorf("update %s taken %d times", id, c)
		}
	}
	if ok, err := a.TakeUpdate(ctx, "slack", "a"); err != nil || !ok {
		t.Errorf("the same id on another platform: %v, %v; want taken", ok, err)
	}
	if _, err := a.TakeUpdate(ctx, "telegram", ""); err == nil {
		t.Error("an empty update id was taken")
	}
	pruned, err := a.PruneUpdates(ctx, clock.Add(time.Second))
	if err != nil || pruned != n+1 {
		t.Errorf("pruned %d, %v; want %d", pruned, err, n+1)
	}
	if ok, err := a.TakeUpdate(ctx, "telegram", "a"); err != nil || !ok {
		t.Errorf("an id pruned is taken again: %v, %v", ok, err)
	}
}
