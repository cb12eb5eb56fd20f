package accounts

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// webSessionPrefix marks a browser sign-in's cookie value, so it is never
// taken for a personal token.
const webSessionPrefix = "tws_"

// WebSessionTTL is how long a browser sign-in lasts without a new one.
const WebSessionTTL = 12 * time.Hour

// SignIn is a browser's sign-in as a request presents it.
type SignIn struct {
	User User
	// Hash names the sign-in (the stored SHA-256 of the cookie's value):
	// what a request keeps to check it again or sign it out.
	Hash string
	CSRF string // the token the signed-in page sends on state changes
}

// CSRFOK compares a request's CSRF token with the sign-in's in constant
// time.
func (si SignIn) CSRFOK(got string) bool {
	return si.CSRF != "" && subtle.ConstantTimeCompare([]byte(si.CSRF), []byte(got)) == 1
}

// IsSignInCookie says whether v has a sign-in cookie's form.
func IsSignInCookie(v string) bool { return strings.HasPrefix(v, webSessionPrefix) }

// StartSignIn signs u in and returns the cookie's value (256 random bits,
// given out once: only its hash is stored) and the page's CSRF token.
// Sign-ins expired by now are dropped on the way.
func (s *Service) StartSignIn(ctx context.Context, u User) (cookie, csrf string, err error) {
	now := s.clock()
	if _, err := s.st.DeleteExpiredWebSessions(ctx, now); err != nil {
		return "", "", err
	}
	v, err := randomValue()
	if err != nil {
		return "", "", err
	}
	cookie = webSessionPrefix + v
	if csrf, err = randomValue(); err != nil {
		return "", "", err
	}
	ws := store.WebSession{Hash: HashToken(cookie), UserID: u.ID, CSRF: csrf, CreatedAt: now, ExpiresAt: now.Add(WebSessionTTL)}
	if err := s.st.CreateWebSession(ctx, ws); err != nil {
		return "", "", err
	}
	return cookie, csrf, nil
}

// SignedIn returns the sign-in a cookie's value names, with its user as
// stored now; ErrBadToken for none (unknown, expired, signed out),
// ErrDisabled for a disabled user (whose sign-ins it ends).
func (s *Service) SignedIn(ctx context.Context, cookie string) (SignIn, error) {
	if !IsSignInCookie(cookie) {
		return SignIn{}, ErrBadToken
	}
	return s.signInByHash(ctx, HashToken(cookie))
}

func (s *Service) signInByHash(ctx context.Context, hash string) (SignIn, error) {
	ws, err := s.st.WebSession(ctx, hash, s.clock())
	if errors.Is(err, store.ErrNotFound) {
		return SignIn{}, ErrBadToken
	}
	if err != nil {
		return SignIn{}, err
	}
	u, err := s.st.GetUser(ctx, ws.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return SignIn{}, ErrBadToken
	}
	if err != nil {
		return SignIn{}, err
	}
	if u.Disabled {
		if err := s.st.DeleteUserWebSessions(ctx, u.ID); err != nil {
			return SignIn{}, err
		}
		return SignIn{}, ErrDisabled
	}
	return SignIn{User: u, Hash: hash, CSRF: ws.CSRF}, nil
}

// SignInAlive reports whether the sign-in of that hash still holds: not
// signed out (here or on another replica), not expired, its user not
// disabled. Open event streams are checked with it.
func (s *Service) SignInAlive(ctx context.Context, hash string) bool {
	_, err := s.signInByHash(ctx, hash)
	return err == nil
}

// SignOut ends the sign-in of that hash, for every replica.
func (s *Service) SignOut(ctx context.Context, hash string) error {
	if err := s.st.DeleteWebSession(ctx, hash); err != nil {
		return fmt.Errorf("sign out: %w (the sign-in still holds: try again)", err)
	}
	return nil
}
