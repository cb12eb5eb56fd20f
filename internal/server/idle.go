package server

import (
	"time"
)

// sweepIdle closes live sessions nobody uses, so a long-running server does
// not keep every session's MCP servers and background jobs alive forever.
func (s *Server) sweepIdle(timeout time.Duration) {
	tick := time.NewTicker(max(timeout/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case now := <-tick.C:
			s.evictIdle(now, timeout)
		}
	}
}

// evictIdle closes the live state of sessions that have run no turn and had
// no SSE client for timeout. Their hubs stay, so clients that come back
// resume from Last-Event-ID as before.
func (s *Server) evictIdle(now time.Time, timeout time.Duration) {
	s.mu.Lock()
	states := make([]*sessState, 0, len(s.sessions))
	for _, st := range s.sessions {
		states = append(states, st)
	}
	s.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		busy := st.running || st.live == nil || st.hub.clientCount() > 0
		if busy {
			st.idleSince = time.Time{}
			st.mu.Unlock()
			continue
		}
		if st.idleSince.IsZero() {
			st.idleSince = now
		}
		if now.Sub(st.idleSince) < timeout {
			st.mu.Unlock()
			continue
		}
		l := st.live
		st.live, st.idleSince = nil, time.Time{}
		st.mu.Unlock()
		s.log.Info("closing idle session", "session", st.id)
		l.Close()
	}
}
