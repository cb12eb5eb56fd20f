package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tandem-agent/tandem/internal/store"
)

// LeaseOptions tune the lease that makes one process at a time the runner
// of a session (see Live.Run).
type LeaseOptions struct {
	// TTL is how long a lease outlives its last renewal: a holder that died
	// on another host (or whose pid cannot be checked) is taken over after
	// it. On this host a dead holder's pid is noticed at once.
	TTL time.Duration
	// Heartbeat is how often a running turn renews its lease.
	Heartbeat time.Duration
	// Wait is how long a turn waits for a busy session before failing.
	Wait time.Duration
}

// DefaultLeaseOptions: a heartbeat well inside the TTL, so one slow store
// write does not lose the lease; a short wait, so a second `tandem run`
// fails fast with a clear error rather than queueing behind a long turn.
func DefaultLeaseOptions() LeaseOptions {
	return LeaseOptions{TTL: 15 * time.Second, Heartbeat: 3 * time.Second, Wait: 2 * time.Second}
}

// SetLeaseOptions changes the lease timings. Zero TTL or Heartbeat keep
// theirs; Wait is always taken (0: fail at once when busy).
func (m *Manager) SetLeaseOptions(o LeaseOptions) {
	if o.TTL > 0 {
		m.lease.TTL = o.TTL
	}
	if o.Heartbeat > 0 {
		m.lease.Heartbeat = o.Heartbeat
	}
	m.lease.Wait = max(o.Wait, 0)
}

func newHolder() store.Holder {
	host, _ := os.Hostname()
	return store.Holder{ID: "run_" + strings.ToLower(ulid.Make().String()), PID: os.Getpid(), Host: host}
}

// acquire takes the session's lease, polling up to Wait while another
// runner holds it, and returns a func that stops the heartbeat and releases
// the lease. lost is called (with the reason) if the lease is lost
// mid-turn: the turn must stop, as another runner now owns the session.
func (m *Manager) acquire(ctx context.Context, id string, lost func(error)) (release func(), err error) {
	deadline := time.Now().Add(m.lease.Wait)
	for {
		err = m.store.AcquireLease(ctx, id, m.holder, m.lease.TTL, pidGone)
		if err == nil || !errors.Is(err, store.ErrBusy) || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err != nil {
		var be *store.BusyError
		if errors.As(err, &be) {
			return nil, be
		}
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(m.lease.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				err := m.store.RenewLease(context.Background(), id, m.holder.ID, m.lease.TTL)
				if errors.Is(err, store.ErrLeaseLost) {
					lost(fmt.Errorf("session %s was taken over by another process (or deleted) while this turn ran: %w", id, err))
					return
				}
				// Another error (a busy or full disk) is retried at the next
				// beat; the TTL leaves room for a few.
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		_ = m.store.ReleaseLease(context.Background(), id, m.holder.ID)
	}, nil
}

// Hold takes the session's lease for work done outside a turn (a rewind
// of its files and conversation), so no turn of this or another process
// runs meanwhile: a session busy elsewhere fails after Wait with
// *store.BusyError. release gives the lease back.
func (m *Manager) Hold(ctx context.Context, id string) (release func(), err error) {
	return m.acquire(ctx, id, func(error) {})
}

// LeaseHeld reports whether another live runner holds the session's
// lease: one not expired, whose holder is not this manager nor a process
// on this host that is gone. A `tandem serve` replica whose heartbeats
// are late but that renews the lease of the turn it runs is alive: its
// turn must not be handed over.
func (m *Manager) LeaseHeld(ctx context.Context, id string) (bool, error) {
	l, err := m.store.SessionLease(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && l.ID == m.holder.ID {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !l.Expires.After(time.Now()) {
		return false, nil
	}
	if l.Host == m.holder.Host && pidGone(l.PID) {
		return false, nil
	}
	return true, nil
}
