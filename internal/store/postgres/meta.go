package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
)

// Meta returns the session's value for key, or "" when the key was never
// set. An unknown session is ErrNotFound.
func (s *Store) Meta(ctx context.Context, sessionID, key string) (string, error) {
	var v *string
	err := s.pool.QueryRow(ctx, metaSQL, key, sessionID).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read meta %q of session %s: %w", key, sessionID, err)
	}
	if v == nil {
		return "", nil
	}
	return *v, nil
}

// SetMeta stores a runtime-specific value with the session. It does not
// count as activity: updated_at is left alone.
func (s *Store) SetMeta(ctx context.Context, sessionID, key, value string) error {
	// One statement: the insert finds no session row (and so stores
	// nothing) when the session is unknown.
	tag, err := s.pool.Exec(ctx, setMetaSQL, sessionID, key, value)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNotFound
	}
	if isCode(err, "23503") { // deleted meanwhile
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set meta %q of session %s: %w", key, sessionID, err)
	}
	return nil
}

func putMeta(ctx context.Context, tx pgx.Tx, sessionID, key, value string) error {
	_, err := tx.Exec(ctx, putMetaSQL, sessionID, key, value)
	return err
}
