package mcp

import (
	"strings"
	"sync"
)

// stderrKeep is how much of a server's stderr is kept for error messages.
const stderrKeep = 8 << 10

// ring keeps the last bytes written to it; a stdio server's stderr goes here
// so that a failure can be explained with what the server said.
type ring struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// Tail returns the last n lines (all when n <= 0), trimmed.
func (r *ring) Tail(n int) string {
	r.mu.Lock()
	s := string(r.buf)
	r.mu.Unlock()
	s = strings.TrimRight(s, "\n ")
	if n > 0 {
		lines := strings.Split(s, "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		s = strings.Join(lines, "\n")
	}
	return s
}
