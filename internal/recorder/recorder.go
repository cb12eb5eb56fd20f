// Package recorder stores a runtime's output in a session of the store:
// the turn.Recorder of live sessions and of sub-agents' child sessions.
package recorder

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Store is what a recorder reads and writes: the session (its parent's
// folder and runtime, children stored under it), its messages and its meta
// values.
type Store interface {
	store.Sessions
	store.Messages
	store.SessionMeta
}

// ForSession is the turn.Recorder that stores a runtime's output in the
// given session of st; lastSeq (may be nil) is the session's latest event
// number, stored with every message in the same transaction.
func ForSession(st Store, sessionID string, lastSeq func() int64) turn.Recorder {
	return storeRecorder{s: st, id: sessionID, seq: lastSeq}
}

// ForSessionStored is ForSession whose seq may first wait, and fail:
// stored returns the session's latest event number once the events up to
// it are durably stored (event.Emitter.Stored), so a message is never
// recorded ahead of its events (a replica resuming the turn after a
// crash would number after them, leaving them a gap for good).
func ForSessionStored(st Store, sessionID string, stored func(context.Context) (int64, error)) turn.Recorder {
	return storeRecorder{s: st, id: sessionID, stored: stored}
}

type storeRecorder struct {
	s      Store
	id     string
	seq    func() int64
	stored func(context.Context) (int64, error)
}

func (r storeRecorder) History(ctx context.Context) ([]message.Message, error) {
	return r.s.Messages(ctx, r.id)
}

func (r storeRecorder) Append(ctx context.Context, m message.Message) error {
	var seq int64
	switch {
	case r.stored != nil:
		n, err := r.stored(ctx)
		if err != nil {
			return fmt.Errorf("record a message of session %s: its events are not stored: %w", r.id, err)
		}
		seq = n
	case r.seq != nil:
		seq = r.seq()
	}
	_, err := r.s.AppendWithSeq(ctx, r.id, m, seq)
	return err
}

func (r storeRecorder) Meta(ctx context.Context, key string) (string, error) {
	return r.s.Meta(ctx, r.id, key)
}

func (r storeRecorder) SetMeta(ctx context.Context, key, value string) error {
	return r.s.SetMeta(ctx, r.id, key, value)
}

// Child stores a child session (a sub-agent's) under the recorder's
// session, in the same folder, linked to the tool call that started it.
func (r storeRecorder) Child(ctx context.Context, parentToolUseID, title, model string) (string, turn.Recorder, error) {
	parent, err := r.s.GetSession(ctx, r.id)
	if err != nil {
		return "", nil, fmt.Errorf("child of session %s: %w", r.id, err)
	}
	c, err := r.s.CreateSession(ctx, store.Session{Cwd: parent.Cwd, Model: model, Runtime: parent.Runtime, ParentID: r.id, ParentToolUseID: parentToolUseID, Title: title})
	if err != nil {
		return "", nil, err
	}
	return c.ID, storeRecorder{s: r.s, id: c.ID}, nil
}
