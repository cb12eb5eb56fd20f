package providertest

import (
	"io"
	"net/http"
	"sync"
	"testing"
)

// StreamServer is a provider endpoint for stream parser tests: it answers
// the n-th call with the n-th event stream (the last one again after
// that), written a few bytes at a time as a slow network would deliver
// it, and keeps what each call sent.
type StreamServer struct {
	URL     string
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	paths   []string
}

// NewStreamServer starts one for the test.
func NewStreamServer(t *testing.T, streams ...string) *StreamServer {
	t.Helper()
	s := &StreamServer{}
	s.URL = Serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies, s.headers = append(s.bodies, string(b)), append(s.headers, r.Header.Clone())
		s.paths = append(s.paths, r.URL.RequestURI())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		out := streams[min(n, len(streams)-1)]
		for len(out) > 0 {
			k := min(7, len(out))
			_, _ = io.WriteString(w, out[:k])
			w.(http.Flusher).Flush()
			out = out[k:]
		}
	})
	return s
}

// Body is the i-th call's request body ("" before it came).
func (s *StreamServer) Body(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		return ""
	}
	return s.bodies[i]
}

// Request is the i-th call's path (with its query) and headers.
func (s *StreamServer) Request(i int) (string, http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[i], s.headers[i]
}
