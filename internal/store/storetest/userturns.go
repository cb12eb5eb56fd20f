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

// testUserTurns: a user's turns are admitted up to the limit, whichever
// handle (replica) admits them, also when many admit at once; an ended
// turn frees its place; an unknown user is ErrNotFound.
func testUserTurns(t *testing.T, db DB) {
	ctx := context.Background()
	a, b := db(nil), db(nil)
	u, err := a.CreateUser(ctx, store.User{Name: "limited"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := a.AdmitTurn(ctx, u.ID, "turn-1", 2); err != nil || !ok {
		t.Fatalf("first turn: %v %v", ok, err)
	}
	if ok, err := b.AdmitTurn(ctx, u.ID, "turn-2", 2); err != nil || !ok {
		t.Fatalf("second turn through another handle: %v %v", ok, err)
	}
	if ok, err := b.AdmitTurn(ctx, u.ID, "turn-3", 2); err != nil || ok {
		t.Fatalf("a third turn at a limit of 2: %v %v, want refused", ok, err)
	}
	if err := a.EndTurn(ctx, "turn-1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.AdmitTurn(ctx, u.ID, "turn-3", 2); err != nil || !ok {
		t.Fatalf("a turn after one ended: %v %v", ok, err)
	}
	ids, err := a.AdmittedTurns(ctx, time.Now().Add(time.Minute))
	if err != nil || len(ids) != 2 {
		t.Fatalf("admitted turns: %v %v, want turn-2 and turn-3", ids, err)
	}
	for _, id := range ids {
		if err := b.EndTurn(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// Many admissions at once through two handles: exactly the limit wins.
	var mu sync.Mutex
	won := 0
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := a
			if i%2 == 1 {
				h = b
			}
			ok, err := h.AdmitTurn(ctx, u.ID, fmt.Sprintf("race-%d", i), 3)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 3 {
		t.Fatalf("%d of 12 concurrent admissions won at a limit of 3", won)
	}
	if _, err := a.AdmitTurn(ctx, "usr_nosuchuser", "turn-x", 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a turn of no user: %v, want ErrNotFound", err)
	}
}
