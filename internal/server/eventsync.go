package server

import (
	"context"

	"github.com/tandem-agent/tandem/internal/event"
)

// A turn records a step's messages (and the session's last_seq with them)
// only once the step's events are in the stored log (event.Syncer,
// recorder.ForSessionStored): otherwise a replica SIGKILLed between the
// two leaves seqs that are recorded as emitted but were never stored, and
// the replica resuming the turn numbers after them, a gap no client ever
// fills (bench/serve -procs lost such tool_use and tool_result events).

var _ event.Syncer = (*logSink)(nil)

// done notes that the writer is through with batch (err: given up on;
// refused: the log refused it, the turn's lease being lost).
func (s *logSink) done(batch []event.Event, err error, refused bool) {
	last := batch[len(batch)-1].Seq
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lost, s.lostTo = err, last
	}
	if refused {
		// Refused with the batch, under the same lock: a Sync woken by
		// this batch must already see the turn refused (eventfence.go).
		s.refuseLocked()
	}
	s.stored = max(s.stored, last)
	close(s.progress)
	s.progress = make(chan struct{})
}

// Sync implements event.Syncer: it returns once every event handed to
// the sink with a seq up to seq is stored, or with the error of a batch
// among them the writer gave up on (reported once).
func (s *logSink) Sync(ctx context.Context, seq int64) error {
	for {
		s.mu.Lock()
		if s.refused {
			// The turn lost its lease (eventfence.go): nothing it records
			// or saves (its messages, the session's last_seq) may claim
			// events the log refused.
			s.mu.Unlock()
			return errRefused
		}
		if s.stored >= min(seq, s.given) {
			var err error
			if s.lost != nil && s.lostTo <= seq {
				err, s.lost = s.lost, nil
			}
			s.mu.Unlock()
			return err
		}
		wait := s.progress
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
