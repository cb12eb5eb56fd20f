package server

import "github.com/tandem-agent/tandem/internal/event"

// listener is an in-process front end following a session's events
// through its hub: every event this replica emits or reads from the log,
// once, in seq order, like an SSE client that never lags. Its sink runs
// under the hub's lock, so it must only queue.
type listener struct{ sink event.Sink }

// listen adds sink to the hub's listeners; the returned func removes it.
func (h *hub) listen(sink event.Sink) (stop func()) {
	l := &listener{sink: sink}
	h.mu.Lock()
	if h.listeners == nil {
		h.listeners = map[*listener]struct{}{}
	}
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.listeners, l)
		h.mu.Unlock()
	}
}
