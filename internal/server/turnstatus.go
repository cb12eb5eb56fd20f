package server

import (
	"context"

	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// What every replica says of a session's turns (docs/api.md, Replicas):
// with durable turns, whether a session runs a turn, its prompt and the
// prompts queued after it come from the turn queue's system database,
// not from this process's memory, so a replica that does not run the
// turn shows it running too. A replica that does not run the turn also
// takes the snapshot boundary (GET /api/sessions/{id}'s messages and
// last_seq) from the store: from what the turn recorded when it began
// while it runs, else from the stored session (its message count and
// last_seq, read together).

// sharedSnapshot lays the turn queue's view over sn, this replica's
// snapshot of st; sn unchanged without durable turns or when the queue
// cannot be read (logged).
func (s *Server) sharedSnapshot(ctx context.Context, st *sessState, sn snapshot) snapshot {
	if s.opts.Turns == nil {
		return sn
	}
	turns, err := s.opts.Turns.Unfinished(ctx, st.id)
	if err != nil {
		s.log.Warn("read the session's turns", "session", st.id, "err", err)
		return sn
	}
	local := sn.running
	sn = withTurns(sn, turns)
	if local || s.opts.EventLog == nil {
		// Running here, or one process (SQLite): this replica's
		// boundary is the truth.
		return sn
	}
	if len(turns) > 0 && turns[0].Running {
		b, ok, err := s.opts.Turns.Begun(ctx, turns[0].ID)
		if err == nil && ok && b.Seq != nil {
			sn.boundaryMsgs, sn.boundarySeq = b.Messages, *b.Seq
			return sn
		}
	}
	// No turn of it has begun: the stored session's message count and
	// last_seq, one row read at one instant (a message and the seq of its
	// events are stored in one transaction, recorder.ForSessionStored).
	// The last stored event and then the messages, read one after the
	// other, could straddle a turn starting on another replica: its prompt
	// in the messages and its user_message after last_seq, shown twice.
	if rec, err := s.mgr.Find(ctx, st.id); err == nil {
		sn.boundaryMsgs, sn.boundarySeq = rec.MessageCount, rec.LastSeq
	} else {
		s.log.Warn("read the session's stored boundary", "session", st.id, "err", err)
	}
	return sn
}

// withTurns sets sn's running state from the session's unfinished turns
// (oldest first): the first one runs (or is about to), the rest wait.
func withTurns(sn snapshot, turns []turnqueue.Turn) snapshot {
	if len(turns) == 0 {
		return sn
	}
	sn.running = true
	if sn.current == "" {
		sn.current = turns[0].Prompt
	}
	sn.queued = make([]string, 0, len(turns)-1)
	for _, t := range turns[1:] {
		sn.queued = append(sn.queued, t.Prompt)
	}
	return sn
}

// turnSeq is what a durable turn records as its start's Seq: the
// session's last stored event (0 without a log).
func (s *Server) turnSeq(ctx context.Context, id string) (int64, error) {
	if s.opts.EventLog == nil {
		return 0, nil
	}
	s.mu.Lock()
	st := s.sessions[id]
	s.mu.Unlock()
	if st != nil {
		s.syncLog(st.hub)
	}
	return s.opts.EventLog.LastEventSeq(ctx, id)
}

// sharedStatuses are the unfinished turns of every session by session,
// for the session list (nil without durable turns or when the queue
// cannot be read).
func (s *Server) sharedStatuses(ctx context.Context) map[string][]turnqueue.Turn {
	if s.opts.Turns == nil {
		return nil
	}
	turns, err := s.opts.Turns.Unfinished(ctx)
	if err != nil {
		s.log.Warn("read the unfinished turns", "err", err)
		return nil
	}
	out := map[string][]turnqueue.Turn{}
	for _, t := range turns {
		out[t.Session] = append(out[t.Session], t)
	}
	return out
}
