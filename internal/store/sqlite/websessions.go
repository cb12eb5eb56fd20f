package sqlite

import (
	"context"
	"database/sql"
	_ "embed" // the queries
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, webSessionInsertSQL, ws.Hash, ws.UserID, ws.CSRF, nanos(ws.CreatedAt), nanos(ws.ExpiresAt))
		if err != nil {
			return missingRef(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, store.ErrExists)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store the sign-in of user %s: %w", ws.UserID, err)
	}
	return nil
}

// WebSession returns the sign-in of that hash unless it expired by now.
func (s *Store) WebSession(ctx context.Context, hash string, now time.Time) (store.WebSession, error) {
	var ws store.WebSession
	var created, expires int64
	err := s.db.QueryRowContext(ctx, webSessionGetSQL, hash, nanos(now)).Scan(&ws.Hash, &ws.UserID, &ws.CSRF, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.WebSession{}, fmt.Errorf("sign-in: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.WebSession{}, fmt.Errorf("sign-in: %w", err)
	}
	ws.CreatedAt, ws.ExpiresAt = fromNanos(created), fromNanos(expires)
	return ws, nil
}

// DeleteWebSession signs one sign-in out.
func (s *Store) DeleteWebSession(ctx context.Context, hash string) error {
	_, err := s.exec(ctx, "sign out", webSessionDeleteSQL, hash)
	return err
}

// DeleteUserWebSessions signs every sign-in of a user out.
func (s *Store) DeleteUserWebSessions(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, "sign out user "+userID, webSessionsDeleteUserSQL, userID)
	return err
}

// DeleteExpiredWebSessions drops the sign-ins expired by now.
func (s *Store) DeleteExpiredWebSessions(ctx context.Context, now time.Time) (int, error) {
	return s.exec(ctx, "drop expired sign-ins", webSessionsDeleteExpiredSQL, nanos(now))
}

// exec runs one write statement and returns the rows it changed.
func (s *Store) exec(ctx context.Context, what, q string, args ...any) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return int(n), nil
}
