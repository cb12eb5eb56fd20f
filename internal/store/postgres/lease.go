package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// AcquireLease makes h the session's live runner until ttl from now. It
// takes over a lease that expired, that h already holds, or whose holder
// runs on this host under a pid that dead(pid) reports gone. Otherwise it
// returns a *store.BusyError.
//
// The lease row is locked (FOR UPDATE) before it is judged, so two
// runners acquiring at once, in any processes or machines, queue and the
// second sees the first's lease. A missing row is inserted with ON
// CONFLICT DO NOTHING: if another runner inserted it meanwhile, the
// insert waits for its commit, changes nothing, and the row is judged.
func (s *Store) AcquireLease(ctx context.Context, sessionID string, h store.Holder, ttl time.Duration, dead func(pid int) bool) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		now := s.nowUTC()
		nowN, expN := backend.Nanos(now), backend.Nanos(now.Add(ttl))
		tag, err := tx.Exec(ctx, `INSERT INTO session_leases (session_id, holder, pid, host, acquired_at, expires_at)
			SELECT id, $2, $3, $4, $5, $6 FROM sessions WHERE id = $1
			ON CONFLICT (session_id) DO NOTHING`, sessionID, h.ID, h.PID, h.Host, nowN, expN)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var cur store.Holder
		var acquired, expires int64
		err = tx.QueryRow(ctx, `SELECT holder, pid, host, acquired_at, expires_at FROM session_leases
			WHERE session_id = $1 FOR UPDATE`, sessionID).Scan(&cur.ID, &cur.PID, &cur.Host, &acquired, &expires)
		if errors.Is(err, pgx.ErrNoRows) {
			// No session (the insert found none), or a lease released
			// between the two statements: try once more from the start.
			if err := sessionExists(ctx, tx, sessionID); err != nil {
				return err
			}
			return errRetryLease
		}
		if err != nil {
			return err
		}
		switch {
		case cur.ID == h.ID, expires <= nowN, cur.Host == h.Host && dead != nil && dead(cur.PID):
		default:
			return &store.BusyError{SessionID: sessionID, PID: cur.PID, Host: cur.Host, Since: backend.FromNanos(acquired)}
		}
		_, err = tx.Exec(ctx, `UPDATE session_leases SET holder = $2, pid = $3, host = $4, acquired_at = $5, expires_at = $6
			WHERE session_id = $1`, sessionID, h.ID, h.PID, h.Host, nowN, expN)
		return err
	})
	if errors.Is(err, errRetryLease) {
		return s.AcquireLease(ctx, sessionID, h, ttl, dead)
	}
	if err != nil {
		return fmt.Errorf("lease session %s: %w", sessionID, err)
	}
	return nil
}

var errRetryLease = errors.New("lease released meanwhile")

// RenewLease extends h's lease to ttl from now, or returns ErrLeaseLost.
func (s *Store) RenewLease(ctx context.Context, sessionID, holder string, ttl time.Duration) error {
	tag, err := s.pool.Exec(ctx, `UPDATE session_leases SET expires_at = $1 WHERE session_id = $2 AND holder = $3`,
		backend.Nanos(s.nowUTC().Add(ttl)), sessionID, holder)
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrLeaseLost
	}
	if err != nil {
		return fmt.Errorf("renew lease of session %s: %w", sessionID, err)
	}
	return nil
}

// ReleaseLease ends h's lease; a lease another holder took over is kept.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, holder string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM session_leases WHERE session_id = $1 AND holder = $2`, sessionID, holder); err != nil {
		return fmt.Errorf("release lease of session %s: %w", sessionID, err)
	}
	return nil
}
