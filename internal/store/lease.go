package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrBusy is returned (wrapped, as a *BusyError) when another live runner
// holds a session's lease. Test with errors.Is.
var ErrBusy = errors.New("session is busy")

// ErrLeaseLost is returned by RenewLease when the lease is no longer this
// holder's: it expired and another runner took it over.
var ErrLeaseLost = errors.New("session lease lost")

// Holder identifies a live runner: one session manager in one process.
type Holder struct {
	ID   string
	PID  int
	Host string
}

// BusyError says who holds a session's lease.
type BusyError struct {
	SessionID string
	PID       int
	Host      string
	Since     time.Time
}

func (e *BusyError) Error() string {
	where := fmt.Sprintf("pid %d", e.PID)
	if e.Host != "" {
		where += " on " + e.Host
	}
	return fmt.Sprintf("session %s is busy (running in %s since %s); wait for it to finish or use another session",
		e.SessionID, where, e.Since.Local().Format("15:04:05"))
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// AcquireLease makes h the session's live runner until ttl from now. It
// takes over a lease that expired, that h already holds, or whose holder
// runs on this host under a pid that dead(pid) reports gone (a killed
// process takes over at once instead of after its ttl). Otherwise it
// returns a *BusyError.
func (s *Store) AcquireLease(ctx context.Context, sessionID string, h Holder, ttl time.Duration, dead func(pid int) bool) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.nowUTC()
		var cur Holder
		var acquired, expires int64
		err := tx.QueryRowContext(ctx,
			`SELECT holder, pid, host, acquired_at, expires_at FROM session_leases WHERE session_id = ?`, sessionID).
			Scan(&cur.ID, &cur.PID, &cur.Host, &acquired, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case cur.ID == h.ID, expires <= nanos(now), cur.Host == h.Host && dead != nil && dead(cur.PID):
		default:
			return &BusyError{SessionID: sessionID, PID: cur.PID, Host: cur.Host, Since: fromNanos(acquired)}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO session_leases (session_id, holder, pid, host, acquired_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
				host = excluded.host, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
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
		res, err := tx.ExecContext(ctx, `UPDATE session_leases SET expires_at = ? WHERE session_id = ? AND holder = ?`,
			nanos(s.nowUTC().Add(ttl)), sessionID, holder)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrLeaseLost
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
		_, err := tx.ExecContext(ctx, `DELETE FROM session_leases WHERE session_id = ? AND holder = ?`, sessionID, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("release lease of session %s: %w", sessionID, err)
	}
	return nil
}
