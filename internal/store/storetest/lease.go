package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

func testLeaseOneHolderAtATime(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	a := store.Holder{ID: "a", PID: 100, Host: "h1"}
	b := store.Holder{ID: "b", PID: 200, Host: "h1"}
	alive := func(int) bool { return false }
	if err := s.AcquireLease(ctx, sess.ID, a, time.Minute, alive); err != nil {
		t.Fatal(err)
	}
	if err := s.AcquireLease(ctx, sess.ID, a, time.Minute, alive); err != nil {
		t.Fatalf("holder re-acquiring its own lease: %v", err)
	}
	if l, err := s.SessionLease(ctx, sess.ID); err != nil || l.ID != "a" || l.PID != 100 || l.Host != "h1" || !l.Expires.After(l.Acquired) {
		t.Errorf("SessionLease = %+v, %v; want a's", l, err)
	}
	err := s.AcquireLease(ctx, sess.ID, b, time.Minute, alive)
	var be *store.BusyError
	if !errors.As(err, &be) || !errors.Is(err, store.ErrBusy) || be.PID != 100 {
		t.Fatalf("second holder got %v, want a store.BusyError naming pid 100", err)
	}
	if !strings.Contains(err.Error(), "is busy (running in pid 100 on h1 since") {
		t.Errorf("message %q", err)
	}
	if err := s.RenewLease(ctx, sess.ID, "b", time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("renewing a lease not held: %v", err)
	}
	if err := s.ReleaseLease(ctx, sess.ID, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.AcquireLease(ctx, sess.ID, b, time.Minute, alive); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("another holder's release freed the lease: %v", err)
	}
	if err := s.ReleaseLease(ctx, sess.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionLease(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SessionLease after release: %v, want ErrNotFound", err)
	}
	if err := s.AcquireLease(ctx, sess.ID, b, time.Minute, alive); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

func testLeaseTakenOverWhenExpiredOrHolderDead(t *testing.T, db DB) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := db(func() time.Time { return clock })
	sess := newSession(t, s, "/p")
	a := store.Holder{ID: "a", PID: 100, Host: "h1"}
	b := store.Holder{ID: "b", PID: 200, Host: "h2"}
	if err := s.AcquireLease(ctx, sess.ID, a, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(9 * time.Second)
	if err := s.RenewLease(ctx, sess.ID, "a", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(9 * time.Second) // renewed: still held
	if err := s.AcquireLease(ctx, sess.ID, b, 10*time.Second, nil); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("renewed lease taken: %v", err)
	}
	clock = clock.Add(2 * time.Second) // past expiry
	if err := s.AcquireLease(ctx, sess.ID, b, 10*time.Second, nil); err != nil {
		t.Fatalf("expired lease not taken over: %v", err)
	}
	if err := s.RenewLease(ctx, sess.ID, "a", 10*time.Second); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("old holder renewing a lease taken over: %v", err)
	}

	// Same host, dead pid: taken over before expiry. Another host's pid is
	// never judged by ours.
	c := store.Holder{ID: "c", PID: 300, Host: "h2"}
	dead := func(pid int) bool { return pid == 200 }
	if err := s.AcquireLease(ctx, sess.ID, c, 10*time.Second, dead); err != nil {
		t.Fatalf("dead holder's lease not taken over: %v", err)
	}
	d := store.Holder{ID: "d", PID: 400, Host: "h1"}
	if err := s.AcquireLease(ctx, sess.ID, d, 10*time.Second, func(int) bool { return true }); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("pid on another host judged dead: %v", err)
	}
}
