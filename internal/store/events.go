package store

import "context"

// StoredEvent is one session event as the log keeps it: its per-session
// seq, its type and the event's JSON (internal/event's encoding; the store
// does not read it).
type StoredEvent struct {
	Seq  int64
	Type string
	JSON []byte
}

// Events keeps every session event by (session, seq): the log that every
// replica of `tandem serve` streams from, so a client resumes with
// Last-Event-ID on any of them. The log is the truth; in-memory rings are
// caches of it.
type Events interface {
	// AppendEvents stores events of one session in one transaction. An
	// event whose (session, seq) is stored already keeps the first copy:
	// a retried write, or a step redone after a replica died, repeats
	// nothing. ErrNotFound for an unknown session.
	AppendEvents(ctx context.Context, sessionID string, evs []StoredEvent) error
	// EventsAfter returns the session's events with seq > after, oldest
	// first, at most limit of them (limit <= 0: all).
	EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]StoredEvent, error)
	// LastEventSeq is the highest stored seq of the session (0: none).
	LastEventSeq(ctx context.Context, sessionID string) (int64, error)
	// WatchEvents calls fn(sessionID, seq) after events up to seq of a
	// session were appended: by any process sharing the database where
	// the backend can tell (PostgreSQL's LISTEN/NOTIFY), by this process
	// otherwise (SQLite). fn("", 0) says wake-ups may have been missed:
	// re-read what you follow. It comes once the watch is up (appends
	// before it woke nobody) and after a lost connection is reopened.
	// It blocks until ctx ends; fn must not block.
	WatchEvents(ctx context.Context, fn func(sessionID string, seq int64)) error
}

// HeldEvents is an event log that can fence a turn's events by the
// session's lease: both backends implement it.
type HeldEvents interface {
	// AppendEventsHeld is AppendEvents while holder holds the session's
	// lease (checked in the same transaction, so a runner that lost it
	// meanwhile stores nothing): ErrLeaseLost otherwise. A replica that
	// lost a turn to another one (its lease lapsed: it was stalled, not
	// dead) must not add its late output to the session's log.
	AppendEventsHeld(ctx context.Context, sessionID, holder string, evs []StoredEvent) error
}
