package shell

import (
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

const (
	flushEvery = 50 * time.Millisecond
	flushBytes = 4 << 10
)

// streamer turns a command's output into tool_output events, coalescing
// small writes so that a chatty command sends at most one event per stream
// every flushEvery (or per flushBytes).
type streamer struct {
	mu      sync.Mutex
	emit    func(event.Event)
	id      string
	name    string
	pending map[string][]byte
	order   []string // streams in first-write order since the last flush
	stop    chan struct{}
	done    chan struct{}
}

func newStreamer(emit func(event.Event), toolUseID, toolName string) *streamer {
	s := &streamer{emit: emit, id: toolUseID, name: toolName, pending: map[string][]byte{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *streamer) loop() {
	defer close(s.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.flush(false)
		case <-s.stop:
			return
		}
	}
}

// writer returns an io.Writer feeding stream name ("stdout" or "stderr").
func (s *streamer) writer(stream string) *streamWriter { return &streamWriter{s: s, stream: stream} }

func (s *streamer) add(stream string, p []byte) {
	s.mu.Lock()
	if _, ok := s.pending[stream]; !ok {
		s.order = append(s.order, stream)
	}
	s.pending[stream] = append(s.pending[stream], p...)
	big := len(s.pending[stream]) >= flushBytes
	s.mu.Unlock()
	if big {
		s.flush(false)
	}
}

// flush emits what is pending; final also sends held-back partial runes.
func (s *streamer) flush(final bool) {
	s.mu.Lock()
	var evs []event.Event
	var order []string
	for _, st := range s.order {
		b := s.pending[st]
		out, rest := b, []byte(nil)
		if !final {
			out, rest = splitIncomplete(b)
		}
		if len(out) > 0 {
			evs = append(evs, event.Event{Type: event.ToolOutput, ToolUseID: s.id, ToolName: s.name,
				Stream: st, Output: string(out)})
		}
		if len(rest) > 0 {
			s.pending[st] = append([]byte{}, rest...)
			order = append(order, st)
		} else {
			delete(s.pending, st)
		}
	}
	s.order = order
	// Emit under the lock so events of one stream never overtake each other.
	for _, e := range evs {
		s.emit(e)
	}
	s.mu.Unlock()
}

// close stops the ticker and sends whatever is left.
func (s *streamer) close() {
	close(s.stop)
	<-s.done
	s.flush(true)
}

type streamWriter struct {
	s      *streamer
	stream string
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.s.add(w.stream, p)
	return len(p), nil
}
