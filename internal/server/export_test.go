package server

import "context"

// SSEClients is how many event streams a session has (0 when it is not live).
func (s *Server) SSEClients(id string) int {
	s.mu.Lock()
	st, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		return 0
	}
	return st.hub.clientCount()
}

// DrainTurns is the first part of Shutdown with durable turns: mark the
// server draining, stop taking turns, wait DrainTimeout for the running
// ones, and decide to hand those still running over.
func (s *Server) DrainTurns(ctx context.Context) {
	s.draining.Store(true)
	s.drainTurns(ctx)
}

// RunningHere reports whether a turn of the session runs in this process.
func (s *Server) RunningHere(id string) bool {
	s.mu.Lock()
	st, ok := s.sessions[id]
	s.mu.Unlock()
	return ok && st.snapshot().running
}
