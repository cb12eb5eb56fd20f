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
		tag, err := tx.Exec(ctx, acquireLeaseSQL, sessionID, h.ID, h.PID, h.Host, nowN, expN)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var cur store.Holder
		var acquired, expires int64
		err = tx.QueryRow(ctx, acquireLease2SQL, sessionID).Scan(&cur.ID, &cur.PID, &cur.Host, &acquired, &expires)
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
		_, err = tx.Exec(ctx, acquireLease3SQL, sessionID, h.ID, h.PID, h.Host, nowN, expN)
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
	tag, err := s.pool.Exec(ctx, renewLeaseSQL,
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
	if _, err := s.pool.Exec(ctx, releaseLeaseSQL, sessionID, holder); err != nil {
		return fmt.Errorf("release lease of session %s: %w", sessionID, err)
	}
	return nil
}

// SessionLease returns the session's lease as stored, or ErrNotFound.
func (s *Store) SessionLease(ctx context.Context, sessionID string) (store.Lease, error) {
	var l store.Lease
	var acquired, expires int64
	err := s.pool.QueryRow(ctx, leaseGetSQL, sessionID).Scan(&l.ID, &l.PID, &l.Host, &acquired, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, store.ErrNotFound
	}
	if err != nil {
		return l, fmt.Errorf("read lease of session %s: %w", sessionID, err)
	}
	l.Acquired, l.Expires = backend.FromNanos(acquired), backend.FromNanos(expires)
	return l, nil
}
