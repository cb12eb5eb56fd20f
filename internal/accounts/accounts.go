// Package accounts is who may use `tandem serve`: users and their personal
// API tokens (kept as SHA-256 hashes, compared in constant time), workspace
// members and their roles, who owns each session, the audit log and each
// user's daily spend, over the store's Accounts contract. `tandem users`,
// `tandem audit` and the server's access check all go through a Service, so
// the rules (what a token looks like, who may do what) live here once.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// The types the callers see, named here so front ends need not import
// the store.
type (
	User       = store.User
	Member     = store.Member
	AuditEntry = store.AuditEntry
	AuditQuery = store.AuditQuery
	Workspace  = store.Workspace
)

// Roles, most able first.
const (
	RoleOwner  = store.RoleOwner
	RoleEditor = store.RoleEditor
	RoleViewer = store.RoleViewer
)

// Errors callers tell apart.
var (
	ErrNotFound = store.ErrNotFound
	ErrExists   = store.ErrExists
	// ErrBadToken is a token no user holds (wrong, rotated out).
	ErrBadToken = errors.New("the token is not valid: ask an admin for a new one (tandem users token rotate NAME)")
	// ErrDisabled is a disabled user's token or sign-in.
	ErrDisabled = errors.New("this user is disabled: ask an admin to enable it again (tandem users enable NAME)")
)

// Store is what the service needs of the store.
type Store interface {
	store.Accounts
	store.Workspaces
	store.UserTurns
}

// Service is the accounts of one store.
type Service struct {
	st  Store
	now func() time.Time
}

// New returns the service over st.
func New(st Store) *Service { return &Service{st: st} }

// WithClock returns the service reading the time from now (tests of
// expiry).
func (s *Service) WithClock(now func() time.Time) *Service {
	c := *s
	c.now = now
	return &c
}

func (s *Service) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// tokenPrefix marks a personal token, so it is recognised in a leak scan
// and never confused with the single server token.
const tokenPrefix = "tdm_"

// NewToken returns a fresh personal token (256 random bits) and its hash.
func NewToken() (token, hash string, err error) {
	v, err := randomValue()
	if err != nil {
		return "", "", err
	}
	token = tokenPrefix + v
	return token, HashToken(token), nil
}

// randomValue is 256 random bits, URL-safe: a token's, a sign-in's or a
// CSRF token's body.
func randomValue() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a random value: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// HashToken is the stored form of a token: hex SHA-256. A token has 256
// bits of entropy, so no salt or slow hash is needed.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// IsPersonalToken says whether tok has a personal token's form.
func IsPersonalToken(tok string) bool { return strings.HasPrefix(tok, tokenPrefix) }

// HasUsers reports whether any user exists: until one does, the single
// server token is the admin's.
func (s *Service) HasUsers(ctx context.Context) (bool, error) {
	list, err := s.st.ListUsers(ctx)
	if err != nil {
		return false, err
	}
	return len(list) > 0, nil
}

// Authenticate returns the user holding token; ErrBadToken or ErrDisabled.
func (s *Service) Authenticate(ctx context.Context, token string) (User, error) {
	if !IsPersonalToken(token) {
		return User{}, ErrBadToken
	}
	h := HashToken(token)
	u, err := s.st.UserByTokenHash(ctx, h)
	if errors.Is(err, store.ErrNotFound) {
		return User{}, ErrBadToken
	}
	if err != nil {
		return User{}, err
	}
	// The lookup matched on the hash; comparing again in constant time
	// keeps a backend's comparison out of what an attacker can time.
	if subtle.ConstantTimeCompare([]byte(h), []byte(HashToken(token))) != 1 {
		return User{}, ErrBadToken
	}
	if u.Disabled {
		return User{}, ErrDisabled
	}
	return u, nil
}

// Still reports whether a user who authenticated earlier may go on: it
// exists, is not disabled and, when tokenHash is set, still holds that
// token. Open event streams are checked with it.
func (s *Service) Still(ctx context.Context, userID, tokenHash string) bool {
	var u User
	var err error
	if tokenHash != "" {
		u, err = s.st.UserByTokenHash(ctx, tokenHash)
	} else {
		u, err = s.st.GetUser(ctx, userID)
	}
	return err == nil && u.ID == userID && !u.Disabled
}

// Get finds a user by id or name.
func (s *Service) Get(ctx context.Context, idOrName string) (User, error) {
	return s.st.GetUser(ctx, idOrName)
}

// List returns every user by name.
func (s *Service) List(ctx context.Context) ([]User, error) { return s.st.ListUsers(ctx) }

// Add creates a user with a fresh token, which it returns once (only its
// hash is kept). actor is who did it, for the audit log.
func (s *Service) Add(ctx context.Context, actor, name string, admin bool) (User, string, error) {
	u, err := s.st.CreateUser(ctx, User{Name: name, Admin: admin})
	if err != nil {
		return User{}, "", err
	}
	tok, err := s.setToken(ctx, u.ID)
	if err != nil {
		return User{}, "", err
	}
	s.Audit(ctx, actor, "user.add", u.ID, fmt.Sprintf("name=%s admin=%t", u.Name, admin))
	return u, tok, nil
}

func (s *Service) setToken(ctx context.Context, userID string) (string, error) {
	tok, hash, err := NewToken()
	if err != nil {
		return "", err
	}
	if err := s.st.SetUserToken(ctx, userID, hash); err != nil {
		return "", err
	}
	return tok, nil
}

// Rotate gives a user a new token; the old one stops working at once.
func (s *Service) Rotate(ctx context.Context, actor, idOrName string) (User, string, error) {
	u, err := s.st.GetUser(ctx, idOrName)
	if err != nil {
		return User{}, "", err
	}
	tok, err := s.setToken(ctx, u.ID)
	if err != nil {
		return User{}, "", err
	}
	s.Audit(ctx, actor, "user.token.rotate", u.ID, "name="+u.Name)
	return u, tok, nil
}

// SetDisabled disables or enables a user; disabling signs their browsers
// out everywhere (their tokens stop working by the disabled flag).
func (s *Service) SetDisabled(ctx context.Context, actor, idOrName string, disabled bool) (User, error) {
	u, err := s.update(ctx, actor, idOrName, store.UserUpdate{Disabled: &disabled}, fmt.Sprintf("disabled=%t", disabled))
	if err != nil || !disabled {
		return u, err
	}
	if err := s.st.DeleteUserWebSessions(ctx, u.ID); err != nil {
		return u, fmt.Errorf("the user is disabled, but signing their browsers out failed (each is refused at its next request anyway): %w", err)
	}
	return u, nil
}

// SetAdmin gives or takes the admin role.
func (s *Service) SetAdmin(ctx context.Context, actor, idOrName string, admin bool) (User, error) {
	return s.update(ctx, actor, idOrName, store.UserUpdate{Admin: &admin}, fmt.Sprintf("admin=%t", admin))
}

func (s *Service) update(ctx context.Context, actor, idOrName string, up store.UserUpdate, detail string) (User, error) {
	u, err := s.st.GetUser(ctx, idOrName)
	if err != nil {
		return User{}, err
	}
	if err := s.st.UpdateUser(ctx, u.ID, up); err != nil {
		return User{}, err
	}
	s.Audit(ctx, actor, "user.change", u.ID, "name="+u.Name+" "+detail)
	return s.st.GetUser(ctx, u.ID)
}

// Audit records an entry. A failure to record is not the action's
// failure: the action happened; it is returned for callers that care.
func (s *Service) Audit(ctx context.Context, actor, action, target, detail string) error {
	_, err := s.st.AddAudit(context.WithoutCancel(ctx), AuditEntry{Actor: actor, Action: action, Target: target, Detail: detail})
	return err
}

// AuditLog lists entries newest first.
func (s *Service) AuditLog(ctx context.Context, q AuditQuery) ([]AuditEntry, error) {
	return s.st.ListAudit(ctx, q)
}

// BySubject finds the user an OpenID provider's subject signed in as.
func (s *Service) BySubject(ctx context.Context, subject string) (User, error) {
	return s.st.UserBySubject(ctx, subject)
}

// AddSignedIn creates the user of a first OpenID Connect sign-in, named
// by their email address. It has no API token (`tandem users token
// rotate` gives one).
func (s *Service) AddSignedIn(ctx context.Context, email, subject string, admin bool) (User, error) {
	u, err := s.st.CreateUser(ctx, User{Name: email, Email: email, Subject: subject, Admin: admin})
	if errors.Is(err, store.ErrExists) {
		return User{}, fmt.Errorf("a user named %s exists already but signed in another way: ask an admin to rename or remove it", email)
	}
	if err != nil {
		return User{}, err
	}
	s.Audit(ctx, "oidc", "user.add", u.ID, fmt.Sprintf("name=%s admin=%t signin=oidc", u.Name, admin))
	return u, nil
}

// Spend is what a user's turns cost on day ("2006-01-02", UTC).
func (s *Service) Spend(ctx context.Context, userID, day string) (float64, error) {
	return s.st.Spend(ctx, userID, day)
}

// AdmitTurn counts turnID among the user's unfinished turns, on every
// replica sharing the store, unless they have max already (false).
func (s *Service) AdmitTurn(ctx context.Context, userID, turnID string, max int) (bool, error) {
	return s.st.AdmitTurn(ctx, userID, turnID, max)
}

// EndTurn gives back an admitted turn's place.
func (s *Service) EndTurn(ctx context.Context, turnID string) error {
	return s.st.EndTurn(ctx, turnID)
}

// AdmittedTurns are the turns admitted before before.
func (s *Service) AdmittedTurns(ctx context.Context, before time.Time) ([]string, error) {
	return s.st.AdmittedTurns(ctx, before)
}

// AddSpend adds a turn's cost to the user's day and returns the total.
func (s *Service) AddSpend(ctx context.Context, userID, day string, usd float64) (float64, error) {
	return s.st.AddSpend(ctx, userID, day, usd)
}
