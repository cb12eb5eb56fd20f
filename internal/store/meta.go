package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Meta returns the session's value for key, or "" when the key was never
// set. An unknown session is ErrNotFound.
func (s *Store) Meta(ctx context.Context, sessionID, key string) (string, error) {
	var v sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT value FROM session_meta WHERE session_id = sessions.id AND key = ?)
		FROM sessions WHERE id = ?`, key, sessionID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read meta %q of session %s: %w", key, sessionID, err)
	}
	return v.String, nil
}

// SetMeta stores a runtime-specific value with the session (the Claude Code
// session id, the todo list as JSON). It does not count as activity, so
// updated_at is left alone.
func (s *Store) SetMeta(ctx context.Context, sessionID, key, value string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := sessionExists(ctx, tx, sessionID); err != nil {
			return err
		}
		return putMeta(ctx, tx, sessionID, key, value)
	})
	if err != nil {
		return fmt.Errorf("set meta %q of session %s: %w", key, sessionID, err)
	}
	return nil
}

func putMeta(ctx context.Context, tx *sql.Tx, sessionID, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO session_meta (session_id, key, value) VALUES (?, ?, ?)
		ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`, sessionID, key, value)
	return err
}

// Recorder returns the turn.Recorder that stores a runtime's output in the
// given session.
func (s *Store) Recorder(sessionID string) turn.Recorder {
	return recorder{s: s, id: sessionID}
}

// RecorderWithSeq is Recorder that also stores lastSeq() (the session's
// latest event number) with every message, in the same transaction.
func (s *Store) RecorderWithSeq(sessionID string, lastSeq func() int64) turn.Recorder {
	return recorder{s: s, id: sessionID, seq: lastSeq}
}

type recorder struct {
	s   *Store
	id  string
	seq func() int64
}

func (r recorder) History(ctx context.Context) ([]message.Message, error) {
	return r.s.Messages(ctx, r.id)
}

func (r recorder) Append(ctx context.Context, m message.Message) error {
	var seq int64
	if r.seq != nil {
		seq = r.seq()
	}
	_, err := r.s.appendRetrying(ctx, r.id, m, seq)
	return err
}

func (r recorder) Meta(ctx context.Context, key string) (string, error) {
	return r.s.Meta(ctx, r.id, key)
}

func (r recorder) SetMeta(ctx context.Context, key, value string) error {
	return r.s.SetMeta(ctx, r.id, key, value)
}

// Child stores a child session (a sub-agent's) under the recorder's
// session, in the same folder.
func (r recorder) Child(ctx context.Context, title, model string) (string, turn.Recorder, error) {
	parent, err := r.s.GetSession(ctx, r.id)
	if err != nil {
		return "", nil, fmt.Errorf("child of session %s: %w", r.id, err)
	}
	c, err := r.s.CreateSession(ctx, Session{Cwd: parent.Cwd, Model: model, Runtime: parent.Runtime, ParentID: r.id, Title: title})
	if err != nil {
		return "", nil, err
	}
	return c.ID, recorder{s: r.s, id: c.ID}, nil
}
