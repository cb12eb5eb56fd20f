package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store"
)

// Meta returns the session's value for key, or "" when the key was never
// set. An unknown session is ErrNotFound.
func (s *Store) Meta(ctx context.Context, sessionID, key string) (string, error) {
	var v sql.NullString
	err := s.db.QueryRowContext(ctx, metaGetSQL, key, sessionID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
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
	_, err := tx.ExecContext(ctx, metaPutSQL, sessionID, key, value)
	return err
}
