package postgres

import (
	"context"
	_ "embed" // the queries
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

//go:embed queries/web_session_insert.sql
var webSessionInsertSQL string

//go:embed queries/web_session_get.sql
var webSessionGetSQL string

//go:embed queries/web_session_delete.sql
var webSessionDeleteSQL string

//go:embed queries/web_sessions_delete_user.sql
var webSessionsDeleteUserSQL string

//go:embed queries/web_sessions_delete_expired.sql
var webSessionsDeleteExpiredSQL string

// CreateWebSession stores a browser sign-in.
func (s *Store) CreateWebSession(ctx context.Context, ws store.WebSession) error {
	if ws.CreatedAt.IsZero() {
		ws.CreatedAt = s.nowUTC()
	}
	tag, err := s.pool.Exec(ctx, webSessionInsertSQL, ws.Hash, ws.UserID, ws.CSRF, backend.Nanos(ws.CreatedAt), backend.Nanos(ws.ExpiresAt))
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrExists
	}
	if err != nil {
		return fmt.Errorf("store the sign-in of user %s: %w", ws.UserID, missingRef(err))
	}
	return nil
}

// WebSession returns the sign-in of that hash unless it expired by now.
func (s *Store) WebSession(ctx context.Context, hash string, now time.Time) (store.WebSession, error) {
	var ws store.WebSession
	var created, expires int64
	err := s.pool.QueryRow(ctx, webSessionGetSQL, hash, backend.Nanos(now)).Scan(&ws.Hash, &ws.UserID, &ws.CSRF, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.WebSession{}, fmt.Errorf("sign-in: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.WebSession{}, fmt.Errorf("sign-in: %w", err)
	}
	ws.CreatedAt, ws.ExpiresAt = backend.FromNanos(created), backend.FromNanos(expires)
	return ws, nil
}

// DeleteWebSession signs one sign-in out.
func (s *Store) DeleteWebSession(ctx context.Context, hash string) error {
	if _, err := s.pool.Exec(ctx, webSessionDeleteSQL, hash); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// DeleteUserWebSessions signs every sign-in of a user out.
func (s *Store) DeleteUserWebSessions(ctx context.Context, userID string) error {
	if _, err := s.pool.Exec(ctx, webSessionsDeleteUserSQL, userID); err != nil {
		return fmt.Errorf("sign out user %s: %w", userID, err)
	}
	return nil
}

// DeleteExpiredWebSessions drops the sign-ins expired by now.
func (s *Store) DeleteExpiredWebSessions(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, webSessionsDeleteExpiredSQL, backend.Nanos(now))
	if err != nil {
		return 0, fmt.Errorf("drop expired sign-ins: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
