package server

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
