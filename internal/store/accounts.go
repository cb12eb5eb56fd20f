package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The roles a workspace member has, from most to least able: an owner
// manages the workspace's members, an editor runs sessions in it, a viewer
// reads them.
const (
	RoleOwner  = "owner"
	RoleEditor = "editor"
	RoleViewer = "viewer"
)

// CheckRole refuses a role that is not one of the three.
func CheckRole(role string) error {
	switch role {
	case RoleOwner, RoleEditor, RoleViewer:
		return nil
	}
	return fmt.Errorf("role %q is not one of owner, editor, viewer", role)
}

// ErrExists is returned (wrapped) when a user's name or sign-in subject is
// taken already.
var ErrExists = errors.New("already exists")

// User is a person (or a program) allowed to use `tandem serve`.
type User struct {
	ID    string // "usr_" + ULID
	Name  string // unique; what `tandem users` takes
	Email string // from the OpenID provider; "" for a token-only user
	// Subject is the OpenID provider's issuer and subject ("ISSUER SUB"),
	// unique; "" for a user made with `tandem users add`.
	Subject   string
	Admin     bool
	Disabled  bool
	CreatedAt time.Time
}

// UserUpdate changes the fields that are set.
type UserUpdate struct {
	Admin, Disabled *bool
	Email           *string
}

// Member is one user's role in one workspace.
type Member struct {
	WorkspaceID string
	UserID      string
	Role        string // RoleOwner, RoleEditor, RoleViewer
}

// AuditEntry is one thing a user did, as the audit log keeps it.
type AuditEntry struct {
	ID     string // "aud_" + ULID, time-sortable
	At     time.Time
	Actor  string // the user's id; "" for the server itself
	Action string // e.g. "session.create", "prompt", "permission.answer"
	Target string // what it was done to: a session, user or workspace id, a folder
	Detail string // how: an answer, a changed field (never a secret)
}

// AuditQuery selects audit entries.
type AuditQuery struct {
	Actor string // only this user's entries; "" all
	Limit int    // at most this many, newest first; 0: 100
}

// WebSession is a browser's sign-in (OpenID Connect): the cookie holds a
// random value, the store only its hash, so a stolen database signs no
// one in; every replica reads the same sign-ins, and signing out deletes
// it for all of them.
type WebSession struct {
	Hash      string // hex SHA-256 of the cookie's value
	UserID    string
	CSRF      string // the token the signed-in page sends on state changes
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Accounts keeps who may use `tandem serve`: users and their API tokens
// (stored as hashes only), workspace members, each session's owner, the
// audit log and what each user spent per day.
type Accounts interface {
	// CreateUser stores a new user (an empty ID gets a generated one, a
	// zero CreatedAt the current time); ErrExists when the name or the
	// subject is taken.
	CreateUser(ctx context.Context, u User) (User, error)
	// GetUser finds a user by id or by name; ErrNotFound.
	GetUser(ctx context.Context, idOrName string) (User, error)
	// UserBySubject finds the user an OpenID subject signed in as;
	// ErrNotFound.
	UserBySubject(ctx context.Context, subject string) (User, error)
	// ListUsers returns every user ordered by name.
	ListUsers(ctx context.Context) ([]User, error)
	// UpdateUser changes the fields set in u; ErrNotFound.
	UpdateUser(ctx context.Context, id string, u UserUpdate) error
	// SetUserToken makes hash the user's one API token hash, dropping
	// any earlier one (a rotation); ErrNotFound for an unknown user.
	SetUserToken(ctx context.Context, userID, hash string) error
	// UserByTokenHash finds the user holding the token of that hash;
	// ErrNotFound.
	UserByTokenHash(ctx context.Context, hash string) (User, error)
	// SetMember gives a user a role in a workspace (changing one it had);
	// ErrNotFound when either is unknown.
	SetMember(ctx context.Context, m Member) error
	// RemoveMember takes a user out of a workspace; ErrNotFound when not
	// a member.
	RemoveMember(ctx context.Context, workspaceID, userID string) error
	// Members returns a workspace's members ordered by user id.
	Members(ctx context.Context, workspaceID string) ([]Member, error)
	// Memberships returns the workspaces a user belongs to, by workspace id.
	Memberships(ctx context.Context, userID string) ([]Member, error)
	// SetSessionOwner records who started a session; ErrNotFound when
	// the session or the user is unknown.
	SetSessionOwner(ctx context.Context, sessionID, userID string) error
	// SessionOwner returns the id of the session's owner, "" when it has
	// none (made before accounts, or by the single server token).
	SessionOwner(ctx context.Context, sessionID string) (string, error)
	// AddAudit stores an entry (an empty ID and zero At filled in).
	AddAudit(ctx context.Context, e AuditEntry) (AuditEntry, error)
	// ListAudit returns entries newest first.
	ListAudit(ctx context.Context, q AuditQuery) ([]AuditEntry, error)
	// AddSpend adds usd to what the user spent on day ("2006-01-02", UTC)
	// and returns the day's new total.
	AddSpend(ctx context.Context, userID, day string, usd float64) (float64, error)
	// Spend is what the user spent on day.
	Spend(ctx context.Context, userID, day string) (float64, error)

	// CreateWebSession stores a sign-in (a zero CreatedAt gets the
	// current time); ErrNotFound for an unknown user, ErrExists when the
	// hash is taken.
	CreateWebSession(ctx context.Context, ws WebSession) error
	// WebSession returns the sign-in of that hash unless it expired by
	// now; ErrNotFound for a missing or expired one.
	WebSession(ctx context.Context, hash string, now time.Time) (WebSession, error)
	// DeleteWebSession signs one sign-in out (none: no error).
	DeleteWebSession(ctx context.Context, hash string) error
	// DeleteUserWebSessions signs every sign-in of a user out.
	DeleteUserWebSessions(ctx context.Context, userID string) error
	// DeleteExpiredWebSessions drops the sign-ins expired by now and
	// returns how many.
	DeleteExpiredWebSessions(ctx context.Context, now time.Time) (int, error)
}
