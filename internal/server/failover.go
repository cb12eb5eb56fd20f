package server

import (
	"context"
	"time"
)

// Handing a turn over only when its replica is dead. A heartbeat can be
// late on a live replica (a saturated machine or database: bench/serve
// -procs saw beats time out and live replicas' running turns moved, each
// then run twice, failing "busy" on the session's lease). So a replica
// whose heartbeat is stale still counts as alive while it holds the lease
// of one of its pending turns' sessions: it renews that lease every few
// seconds while the turn runs, and a dead one's lease lapses (at once for
// a process on this host that is gone, else after the lease's TTL). And a
// turn resumed here waits for the session's lease instead of failing.

// ownerAlive is the sweep's test of a replica with pending turns on
// sessions: its heartbeat is fresh (fresh[replica]) or it holds one of
// their leases.
func (s *Server) ownerAlive(ctx context.Context, fresh map[string]bool) func(replica string, sessions []string) bool {
	return func(replica string, sessions []string) bool {
		if fresh[replica] {
			return true
		}
		for _, id := range sessions {
			held, err := s.mgr.LeaseHeld(ctx, id)
			if err != nil || held { // unknown: not taken for dead on a failed read
				return true
			}
		}
		return false
	}
}

// leaseWait bounds how long a resumed turn waits for the session's lease
// (its last holder is finishing the turn, or died and the lease lapses).
const leaseWait = 15 * time.Minute

// awaitLease waits, bounded, until no live runner holds the session's
// lease: a turn moved here while its first replica still ran it goes on
// from what that replica stored once it is done, rather than fail busy
// (its clients saw an error event) or run beside it.
func (s *Server) awaitLease(ctx context.Context, id string) {
	deadline := time.Now().Add(leaseWait)
	warned := false
	for time.Now().Before(deadline) {
		held, err := s.mgr.LeaseHeld(ctx, id)
		if err == nil && !held {
			return
		}
		if !warned {
			s.log.Warn("a resumed turn waits for the session's lease: its last runner still holds it", "session", id)
			warned = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}
