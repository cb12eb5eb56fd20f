package shell

import (
	"fmt"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

const (
	flushEvery = 50 * time.Millisecond
	// flushBytes is both when pending output is sent and the most one
	// event carries.
	flushBytes = 4 << 10
	// maxStreamed bounds what one call streams as events: a command that
	// prints 100 MB must not become 100 MB of events. The result and the
	// spill file still get everything (see collector).
	maxStreamed = 1 << 20
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
	sent    int64    // bytes emitted so far
	elided  map[string]int64
	cut     bool // the bound was reached: nothing more is streamed
	stop    chan struct{}
	done    chan struct{}
}

func newStreamer(emit func(event.Event), toolUseID, toolName string) *streamer {
	s := &streamer{emit: emit, id: toolUseID, name: toolName, pending: map[string][]byte{}, elided: map[string]int64{},
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
	if room := maxStreamed - s.sent - s.pendingBytes(); s.cut || int64(len(p)) > room {
		// Cut once, on a rune boundary; everything after is counted, not
		// sent (a later write may start inside a character cut here).
		head := []byte(nil)
		if !s.cut {
			head, _ = splitIncomplete(p[:max(room, 0)])
			s.cut = true
		}
		s.elided[stream] += int64(len(p) - len(head))
		p = head
	}
	if len(p) == 0 {
		s.mu.Unlock()
		return
	}
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
		if !final || s.cut {
			out, rest = splitIncomplete(b)
		}
		if final && s.cut && len(rest) > 0 {
			// A character the cut left half-sent is never completed:
			// count it with what was not streamed.
			s.elided[st] += int64(len(rest))
			rest = nil
		}
		for len(out) > 0 {
			chunk := out
			if len(chunk) > flushBytes {
				chunk, _ = splitIncomplete(out[:flushBytes])
				if len(chunk) == 0 { // not UTF-8: cut anywhere
					chunk = out[:flushBytes]
				}
			}
			evs = append(evs, event.Event{Type: event.ToolOutput, ToolUseID: s.id, ToolName: s.name,
				Stream: st, Output: string(chunk)})
			s.sent += int64(len(chunk))
			out = out[len(chunk):]
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

func (s *streamer) pendingBytes() int64 {
	n := 0
	for _, b := range s.pending {
		n += len(b)
	}
	return int64(n)
}

// close stops the ticker and sends whatever is left, then says how much
// was not streamed.
func (s *streamer) close() {
	close(s.stop)
	<-s.done
	s.flush(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range []string{"stdout", "stderr"} {
		if n := s.elided[st]; n > 0 {
			s.emit(event.Event{Type: event.ToolOutput, ToolUseID: s.id, ToolName: s.name, Stream: st,
				Output: fmt.Sprintf("\n[tandem: %d more bytes of %s were not streamed (a call streams at most %d MiB); the tool result and its spill file have the output]\n", n, st, maxStreamed>>20)})
		}
	}
}

type streamWriter struct {
	s      *streamer
	stream string
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.s.add(w.stream, p)
	return len(p), nil
}
