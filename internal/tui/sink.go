package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
)

// Sink receives a session's events (it is an event.Sink) and hands them
// to the UI in batches. The agent loop calls Emit inline, so Emit never
// waits for the screen: a burst of deltas becomes one update and one
// redraw instead of hundreds.
type Sink struct {
	mu     sync.Mutex
	buf    []event.Event
	wake   chan struct{}
	closed bool
}

// NewSink returns an empty sink; events emitted before Run starts are kept.
func NewSink() *Sink { return &Sink{wake: make(chan struct{}, 1)} }

// Emit queues e for the UI.
func (s *Sink) Emit(e event.Event) {
	s.mu.Lock()
	if !s.closed {
		s.buf = append(s.buf, e)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Sink) take() []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buf
	s.buf = nil
	return b
}

// eventsMsg is a batch of events in seq order.
type eventsMsg []event.Event

// pump delivers batches through send until the returned stop is called.
func (s *Sink) pump(send func(tea.Msg)) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-s.wake:
				if b := s.take(); len(b) > 0 {
					send(eventsMsg(b))
				}
			}
		}
	}()
	return func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(quit)
		<-done
	}
}
