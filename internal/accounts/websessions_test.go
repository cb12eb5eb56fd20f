package accounts_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
)

// TestSignInExpiresAndEnds: a sign-in holds until WebSessionTTL has
// passed, a disabled user's sign-ins end, and a sign-in ended is refused
// with the clock still inside its lifetime.
func TestSignInExpiresAndEnds(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	svc := accounts.New(st).WithClock(func() time.Time { return now })
	ann, _, err := svc.Add(ctx, "test", "ann", false)
	if err != nil {
		t.Fatal(err)
	}
	cookie, csrf, err := svc.StartSignIn(ctx, ann)
	if err != nil {
		t.Fatal(err)
	}
	if !accounts.IsSignInCookie(cookie) || accounts.IsPersonalToken(cookie) || csrf == "" || csrf == cookie {
		t.Fatalf("cookie %q csrf %q", cookie, csrf)
	}
	si, err := svc.SignedIn(ctx, cookie)
	if err != nil || si.User.ID != ann.ID || si.Hash != accounts.HashToken(cookie) || !si.CSRFOK(csrf) || si.CSRFOK("x") {
		t.Fatalf("SignedIn = %+v, %v", si, err)
	}
	now = now.Add(accounts.WebSessionTTL - time.Second)
	if _, err := svc.SignedIn(ctx, cookie); err != nil {
		t.Errorf("a second before expiry: %v", err)
	}
	now = now.Add(time.Second)
	if _, err := svc.SignedIn(ctx, cookie); !errors.Is(err, accounts.ErrBadToken) {
		t.Errorf("at expiry: %v, want ErrBadToken", err)
	}

	cookie, _, err = svc.StartSignIn(ctx, ann)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetDisabled(ctx, "test", "ann", true); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetDisabled(ctx, "test", "ann", false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignedIn(ctx, cookie); !errors.Is(err, accounts.ErrBadToken) {
		t.Errorf("a sign-in of a user disabled and enabled again: %v, want ErrBadToken (signed out by the disabling)", err)
	}
	cookie, _, _ = svc.StartSignIn(ctx, ann)
	si, _ = svc.SignedIn(ctx, cookie)
	if err := svc.SignOut(ctx, si.Hash); err != nil {
		t.Fatal(err)
	}
	if svc.SignInAlive(ctx, si.Hash) {
		t.Error("a signed-out sign-in is alive")
	}
}
