package server

import (
	"errors"

	"github.com/tandem-agent/tandem/internal/event"
)

// A turn's events are stored only while its runner holds the session's
// lease (event.Fencer, store.HeldEvents): a replica that stalled past the
// lease's TTL, and whose turn another replica took over meanwhile, may
// wake and go on with the turn. Its late events are refused by the log
// in the same transaction that checks the lease; from the first refused
// batch on, nothing more of the turn is stored or handed to the hub (its
// lease-lost error, its interrupted result, runTurn's error end), and
// the messages it would record fail, as a message is recorded only once
// its events are stored (eventsync.go). runJob then leaves the workflow
// to the replica that took it.

var _ event.Fencer = (*logSink)(nil)

// Fence implements event.Fencer.
func (s *logSink) Fence(holder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holder = holder
	if holder != "" {
		s.refused = false // the lease is this turn's: a new turn
	}
}

// fenceOf is the holder a batch is stored under: the last of its events
// emitted while a turn held the lease ("" none: stored unconditionally).
func fenceOf(holders []string) string {
	for i := len(holders) - 1; i >= 0; i-- {
		if holders[i] != "" {
			return holders[i]
		}
	}
	return ""
}

// errRefused is what Sync reports for the events of a turn whose lease
// was lost: the message they belong to must not be recorded.
var errRefused = errors.New("the session's lease was lost to another runner: this turn's output is not stored")

// refuseLocked drops the rest of the turn once a batch was refused.
func (s *logSink) refuseLocked() {
	s.refused = true
	for _, e := range s.pending {
		s.dropLocked(e)
	}
	s.pending, s.holders = nil, nil
}

// dropLocked gives e up: not stored, not shown, and Sync up to it says
// why.
func (s *logSink) dropLocked(e event.Event) {
	s.given = max(s.given, e.Seq)
	s.stored = max(s.stored, e.Seq)
	s.lost, s.lostTo = errRefused, max(s.lostTo, e.Seq)
	close(s.progress)
	s.progress = make(chan struct{})
}

// newTurn readies the sink for a turn starting here: a turn refused
// before no longer silences the session.
func (s *logSink) newTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = false
}

// wasRefused reports whether the turn's output was refused.
func (s *logSink) wasRefused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}
