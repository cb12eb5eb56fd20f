package session

import "time"

// defaultIdleAfter is how long a session waits for the next prompt before
// OnIdle runs (Claude Code's idle notification threshold).
const defaultIdleAfter = 60 * time.Second

// armIdle starts the idle timer after a turn; the next turn or Close
// stops it. When it fires, the equipment's Idle runs.
func (l *Live) armIdle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	after := l.idleAfter
	if after <= 0 {
		after = defaultIdleAfter
	}
	if l.idle != nil {
		l.idle.Stop()
	}
	l.idle = time.AfterFunc(after, l.eq.Idle)
}

func (l *Live) stopIdle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idle != nil {
		l.idle.Stop()
		l.idle = nil
	}
}
