package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// AcquireLease makes h the session's live runner until ttl from now. It
// takes over a lease that expired, that h already holds, or whose holder
// runs on this host under a pid that dead(pid) reports gone (a killed
// process takes over at once instead of after its ttl). Otherwise it
// returns a *BusyError.
func (s *Store) AcquireLease(ctx context.Context, sessionID string, h store.Holder, ttl time.Duration, dead func(pid int) bool) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.nowUTC()
		var cur store.Holder
		var acquired, expires int64
		err := tx.QueryRowContext(ctx, leaseGetSQL, sessionID).
			Scan(&cur.ID, &cur.PID, &cur.Host, &acquired, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case cur.ID == h.ID, expires <= nanos(now), cur.Host == h.Host && dead != nil && dead(cur.PID):
		default:
			return &store.BusyError{SessionID: sessionID, PID: cur.PID, Host: cur.Host, Since: fromNanos(acquired)}
		}
		_, err = tx.ExecContext(ctx, leasePutSQL,
			sessionID, h.ID, h.PID, h.Host, nanos(now), nanos(now.Add(ttl)))
		return err
	})
	if err != nil {
		return fmt.Errorf("lease session %s: %w", sessionID, err)
	}
	return nil
}

// RenewLease extends h's lease to ttl from now, or returns ErrLeaseLost.
func (s *Store) RenewLease(ctx context.Context, sessionID, holder string, ttl time.Duration) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, leaseRenewSQL,
			nanos(s.nowUTC().Add(ttl)), sessionID, holder)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrLeaseLost
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("renew lease of session %s: %w", sessionID, err)
	}
	return nil
}

// ReleaseLease ends h's lease; a lease another holder took over is kept.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, holder string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, leaseReleaseSQL, sessionID, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("release lease of session %s: %w", sessionID, err)
	}
	return nil
}

// SessionLease returns the session's lease as stored, or ErrNotFound.
func (s *Store) SessionLease(ctx context.Context, sessionID string) (store.Lease, error) {
	var l store.Lease
	var acquired, expires int64
	err := s.db.QueryRowContext(ctx, leaseGetSQL, sessionID).Scan(&l.ID, &l.PID, &l.Host, &acquired, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return l, store.ErrNotFound
	}
	if err != nil {
		return l, fmt.Errorf("read lease of session %s: %w", sessionID, err)
	}
	l.Acquired, l.Expires = fromNanos(acquired), fromNanos(expires)
	return l, nil
}
