// Package store is the storage contract: the types tandem keeps (sessions,
// their messages and totals, leases, checkpoints, grants, workspaces,
// session metadata, sub-agent links, compaction boundaries as messages),
// the errors every backend returns for the same conditions, and small
// interfaces grouped by use. Store is their union: what a backend
// implements. Callers depend on the small interfaces they use.
//
// The backends live in sub-packages (sqlite: one embedded file, the
// default; a PostgreSQL backend for shared team servers) and are chosen by
// internal/store/storeopen from a database URL; nothing outside the store
// packages names a backend type. internal/store/storetest is the
// conformance suite every backend passes; internal/store/backend holds what
// backends share (ids, the stored content format, titles, prefix rules).
//
// This package imports only internal/message and the standard library.
package store

import (
	"context"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// Sessions stores, finds, changes and deletes sessions.
type Sessions interface {
	// CreateSession stores a new session. An empty ID gets a generated,
	// time-sortable one ("ses_" + ULID) and zero timestamps get the current
	// time. Totals, message count and cost start empty whatever sess
	// holds. A ParentID must name a stored session (ErrNotFound).
	CreateSession(ctx context.Context, sess Session) (Session, error)
	// GetSession loads a session by id, or by a unique prefix of at least
	// six characters (the "ses_" start may be left out), as git resolves
	// commits: ErrNotFound, ErrAmbiguous, ErrBadID.
	GetSession(ctx context.Context, id string) (Session, error)
	// ListSessions returns sessions, most recently updated first (ties:
	// the greater id first).
	ListSessions(ctx context.Context, opt ListOptions) ([]Session, error)
	// LatestSession returns the most recently updated top-level session
	// started in cwd (what --continue resumes); sub-agent sessions are
	// skipped.
	LatestSession(ctx context.Context, cwd string) (Session, error)
	// UpdateSession changes the fields set in u and bumps updated_at (never
	// backwards); LastSeq only ever rises.
	UpdateSession(ctx context.Context, id string, u SessionUpdate) error
	// DeleteSession removes a session with its messages, metadata,
	// checkpoints, lease and sub-agent sessions.
	DeleteSession(ctx context.Context, id string) error
}

// Messages stores and loads a session's conversation.
type Messages interface {
	// AppendMessage stores m at the end of the session's conversation. An
	// empty ID gets a generated one ("msg_" + ULID) and a zero CreatedAt
	// the current time. In the same transaction it adds m's usage and cost
	// to the session's totals, counts the message, bumps updated_at and,
	// when the session has no title yet, takes one from the first line of
	// a user message's text (backend.TitleFrom).
	AppendMessage(ctx context.Context, sessionID string, m message.Message) (message.Message, error)
	// AppendWithSeq is AppendMessage that also raises the session's
	// last_seq to lastSeq (0 leaves it) in the same transaction; where the
	// backend can run out of disk it retries a while and then fails with a
	// *DiskFullError naming what was not stored. It is how a turn's
	// messages are written.
	AppendWithSeq(ctx context.Context, sessionID string, m message.Message, lastSeq int64) (message.Message, error)
	// Messages returns the session's conversation, oldest first;
	// ErrNotFound for an unknown session (an empty list for one without
	// messages).
	Messages(ctx context.Context, sessionID string) ([]message.Message, error)
}

// SessionMeta keeps runtime-specific values with a session (the Claude
// Code session id, the todo list as JSON, rewind resume facts).
type SessionMeta interface {
	// Meta returns the value for key, "" when never set; ErrNotFound for
	// an unknown session.
	Meta(ctx context.Context, sessionID, key string) (string, error)
	// SetMeta stores a value; it does not count as activity (updated_at
	// is left alone).
	SetMeta(ctx context.Context, sessionID, key, value string) error
}

// Leases make one live runner per session across processes and machines.
type Leases interface {
	// AcquireLease makes h the session's live runner until ttl from now.
	// It takes over a lease that expired, that h already holds, or whose
	// holder runs on h's host under a pid that dead(pid) reports gone.
	// Otherwise it returns a *BusyError (errors.Is ErrBusy).
	AcquireLease(ctx context.Context, sessionID string, h Holder, ttl time.Duration, dead func(pid int) bool) error
	// RenewLease extends the holder's lease to ttl from now, or returns
	// ErrLeaseLost when another runner took it over.
	RenewLease(ctx context.Context, sessionID, holder string, ttl time.Duration) error
	// ReleaseLease ends the holder's lease; one another holder took over
	// is kept.
	ReleaseLease(ctx context.Context, sessionID, holder string) error
	// SessionLease returns the session's lease as stored (it may have
	// expired), or ErrNotFound when none is held.
	SessionLease(ctx context.Context, sessionID string) (Lease, error)
}

// Lease is a session's lease as stored: who holds it, since when, and
// until when unless renewed.
type Lease struct {
	Holder
	Acquired, Expires time.Time
}

// Checkpoints keeps the state before each prompt, for rewinds.
type Checkpoints interface {
	// CreateCheckpoint stores the session's next checkpoint: its number
	// follows the highest remaining one (after a rewind to N the next
	// prompt is N again) and its position is that of the message the
	// prompt will be.
	CreateCheckpoint(ctx context.Context, sessionID, prompt, resume string) (Checkpoint, error)
	// AddCheckpointFiles records files' prior states in checkpoint number,
	// except paths it already has, and in the same transaction sets the
	// files' known states (hash; "" = absent).
	AddCheckpointFiles(ctx context.Context, sessionID string, number int, files []CheckpointFile, known map[string]string) error
	// SetKnownFiles records what tandem left files as.
	SetKnownFiles(ctx context.Context, sessionID string, known map[string]string) error
	// KnownFiles returns what tandem last left each file it changed as.
	KnownFiles(ctx context.Context, sessionID string) (map[string]string, error)
	// Checkpoints returns a session's checkpoints, oldest first, with
	// their files ordered by path; ErrNotFound for an unknown session.
	Checkpoints(ctx context.Context, sessionID string) ([]Checkpoint, error)
	// PruneCheckpoints keeps the newest keep checkpoints and reports how
	// many it deleted.
	PruneCheckpoints(ctx context.Context, sessionID string, keep int) (int, error)
	// RewindConversation, in one transaction, moves the messages from
	// position on aside (kept until the session is deleted; compaction
	// boundaries among them go too), drops checkpoint number and the later
	// ones and sets the given meta values. It reports how many messages
	// it moved.
	RewindConversation(ctx context.Context, sessionID string, number int, position int64, meta map[string]string) (int, error)
	// RewoundMessageCount is how many messages rewinds have set aside.
	RewoundMessageCount(ctx context.Context, sessionID string) (int, error)
	// CheckpointHashes returns every blob hash any checkpoint refers to.
	CheckpointHashes(ctx context.Context) (map[string]bool, error)
	// DropEmptyCheckpoint deletes checkpoint number when its turn left no
	// message and no file.
	DropEmptyCheckpoint(ctx context.Context, sessionID string, number int) error
}

// Grants keeps saved "allow always" / "deny always" rules.
type Grants interface {
	// AddGrant saves g; saving a rule that exists returns the stored one.
	AddGrant(ctx context.Context, g Grant) (Grant, error)
	// ListGrants returns one scope's grants (all when scope is ""),
	// oldest first.
	ListGrants(ctx context.Context, scope string) ([]Grant, error)
	// DeleteGrant removes a grant; ErrNotFound when there is none.
	DeleteGrant(ctx context.Context, id string) error
}

// Workspaces keeps the folders `tandem serve` lets agents run in.
type Workspaces interface {
	// AddWorkspace registers an existing folder (an absolute path);
	// registering it again returns the existing workspace.
	AddWorkspace(ctx context.Context, path string) (Workspace, error)
	// ListWorkspaces returns the workspaces ordered by path.
	ListWorkspaces(ctx context.Context) ([]Workspace, error)
	// DeleteWorkspace unregisters one (its files are untouched).
	DeleteWorkspace(ctx context.Context, id string) error
	// WorkspaceForPath returns the deepest workspace containing path,
	// symbolic links resolved on both sides (backend.WorkspaceContaining).
	WorkspaceForPath(ctx context.Context, path string) (Workspace, bool, error)
}

// Subagents reads the sessions sub-agents ran in.
type Subagents interface {
	// Children returns the sub-agent sessions started under parentID,
	// oldest first.
	Children(ctx context.Context, parentID string) ([]Session, error)
	// SubagentRuns returns the sub-agents that tool calls in msgs started,
	// each with its messages and own sub-agents (backend.SubagentRuns).
	SubagentRuns(ctx context.Context, parentID string, msgs []message.Message) ([]SubagentRun, error)
}

// Health is what `tandem doctor` asks a backend.
type Health interface {
	// Info says which backend this is and where, and its schema level.
	Info(ctx context.Context) (Info, error)
	// Check runs the backend's integrity check and returns the problems
	// it found; none means the data is sound.
	Check(ctx context.Context) ([]string, error)
}

// Info describes an open store for `tandem doctor`.
type Info struct {
	Backend  string // "sqlite", "postgres"
	Location string // a file path, or a URL without its password
	// Schema is the highest migration applied; SchemaLatest the highest
	// this binary knows.
	Schema, SchemaLatest int
	// Server is the database server's version; empty for an embedded one.
	Server string
	// Details are further backend-specific facts, one line each.
	Details []string
}

// Store is the whole contract: what a backend implements. It is safe for
// concurrent use.
type Store interface {
	Sessions
	Messages
	SessionMeta
	Leases
	Checkpoints
	Grants
	Workspaces
	Subagents
	Events
	Replicas
	Answers
	UserTurns

	Bridges

	Accounts
	Health
	// Close releases the store; later calls fail.
	Close() error
}
