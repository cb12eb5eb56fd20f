package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// testWebSessions: a sign-in stored on one handle is read on another (a
// second replica), is gone there once it expires or is signed out, a
// user's sign-ins go together, and expired ones are dropped.
func testWebSessions(t *testing.T, db DB) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	a, b := db(func() time.Time { return t0 }), db(nil)
	ann, err := a.CreateUser(ctx, store.User{Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := a.CreateUser(ctx, store.User{Name: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	hour := t0.Add(time.Hour)
	for _, ws := range []store.WebSession{
		{Hash: "h-ann-1", UserID: ann.ID, CSRF: "c1", ExpiresAt: hour},
		{Hash: "h-ann-2", UserID: ann.ID, CSRF: "c2", ExpiresAt: hour},
		{Hash: "h-bob", UserID: bob.ID, CSRF: "c3", ExpiresAt: hour},
		{Hash: "h-old", UserID: bob.ID, CSRF: "c4", ExpiresAt: t0.Add(-time.Second)},
	} {
		if err := a.CreateWebSession(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.CreateWebSession(ctx, store.WebSession{Hash: "h-ann-1", UserID: bob.ID, CSRF: "x", ExpiresAt: hour}); !errors.Is(err, store.ErrExists) {
		t.Errorf("a taken hash: %v, want ErrExists", err)
	}
	if err := a.CreateWebSession(ctx, store.WebSession{Hash: "h-x", UserID: "usr_nobody", CSRF: "x", ExpiresAt: hour}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown user: %v, want ErrNotFound", err)
	}

	got, err := b.WebSession(ctx, "h-ann-1", t0)
	if err != nil || got.UserID != ann.ID || got.CSRF != "c1" || !got.ExpiresAt.Equal(hour) || !got.CreatedAt.Equal(t0) {
		t.Fatalf("the other handle reads %+v, %v", got, err)
	}
	// Expiry is the store's to enforce: at or after it, no sign-in.
	if _, err := b.WebSession(ctx, "h-ann-1", hour); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("at its expiry: %v, want ErrNotFound", err)
	}
	if _, err := b.WebSession(ctx, "h-old", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an expired sign-in: %v, want ErrNotFound", err)
	}
	if _, err := b.WebSession(ctx, "h-none", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown hash: %v, want ErrNotFound", err)
	}

	// Signed out on one handle: gone on the other.
	if err := b.DeleteWebSession(ctx, "h-ann-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteWebSession(ctx, "h-ann-1"); err != nil {
		t.Errorf("signing out twice: %v", err)
	}
	if _, err := a.WebSession(ctx, "h-ann-1", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after sign-out: %v, want ErrNotFound", err)
	}
	if _, err := a.WebSession(ctx, "h-ann-2", t0); err != nil {
		t.Errorf("ann's other sign-in went too: %v", err)
	}
	if err := a.DeleteUserWebSessions(ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WebSession(ctx, "h-ann-2", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after signing ann out everywhere: %v, want ErrNotFound", err)
	}
	if _, err := b.WebSession(ctx, "h-bob", t0); err != nil {
		t.Errorf("bob's sign-in went with ann's: %v", err)
	}

	n, err := a.DeleteExpiredWebSessions(ctx, t0)
	if err != nil || n != 1 {
		t.Errorf("DeleteExpiredWebSessions = %d, %v; want 1 (h-old)", n, err)
	}
	if _, err := b.WebSession(ctx, "h-bob", t0); err != nil {
		t.Errorf("a live sign-in was dropped as expired: %v", err)
	}
}
