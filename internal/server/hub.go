package server

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// frame is one event ready to write: encoded once, sent to every client.
type frame struct {
	seq     int64
	typ     event.Type
	created time.Time
	data    []byte
}

// hub keeps a session's recent events in a bounded ring and fans new ones
// out to its SSE clients. Emit runs inline in the turn (under the
// emitter's lock), so it never blocks: a client whose buffer is full is
// dropped and resumes later with Last-Event-ID.
type hub struct {
	mu      sync.Mutex
	ring    []frame // circular once full; grows up to max (most sessions stay small)
	max     int
	start   int   // index of the oldest frame in ring
	n       int   // frames held
	floor   int64 // every event with seq > floor is held (or not yet emitted)
	last    int64 // seq of the newest event seen
	clients map[*client]struct{}
	closed  bool
	// answered notes permission requests that got a reply, so a late
	// second reply gets 409 even after the broker forgot the request.
	onReply func(requestID string)
}

// client is one SSE stream. Its channel is closed when it falls behind,
// when the session goes away and on shutdown; the stream then ends.
type client struct {
	ch chan frame
}

func newHub(capacity int, lastSeq int64, onReply func(string)) *hub {
	return &hub{max: capacity, floor: lastSeq, last: lastSeq,
		clients: map[*client]struct{}{}, onReply: onReply}
}

// Emit implements event.Sink.
func (h *hub) Emit(e event.Event) {
	data, err := json.Marshal(e)
	if err != nil { // cannot happen for the flat event struct; keep the stream going
		data = []byte(`{"type":"error","error":"event could not be encoded"}`)
	}
	if e.Type == event.PermissionReply && h.onReply != nil {
		h.onReply(e.RequestID)
	}
	f := frame{seq: e.Seq, typ: e.Type, created: e.Time, data: data}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Seq <= h.last { // a second emitter replaying old numbers: ignore
		return
	}
	h.push(f)
	for c := range h.clients {
		select {
		case c.ch <- f:
		default:
			close(c.ch)
			delete(h.clients, c)
		}
	}
}

func (h *hub) push(f frame) {
	if h.n == len(h.ring) && len(h.ring) < h.max {
		h.ring = append(h.ring, f) // start is 0 until the ring is full
		h.n++
		h.last = f.seq
		return
	}
	if h.n == len(h.ring) {
		h.floor = h.ring[h.start].seq
		h.start = (h.start + 1) % len(h.ring)
		h.n--
	}
	h.ring[(h.start+h.n)%len(h.ring)] = f
	h.n++
	h.last = f.seq
}

// subscribe returns the held events after seq and a client that receives
// every later one. ok is false when events after seq are no longer held
// (or seq is from the future): the client must reload the session.
func (h *hub) subscribe(after int64, buffer int) (backlog []frame, c *client, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || after < h.floor || after > h.last {
		return nil, nil, false
	}
	for i := 0; i < h.n; i++ {
		f := h.ring[(h.start+i)%len(h.ring)]
		if f.seq > after {
			backlog = append(backlog, f)
		}
	}
	c = &client{ch: make(chan frame, buffer)}
	h.clients[c] = struct{}{}
	return backlog, c, true
}

func (h *hub) unsubscribe(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c.ch)
	}
}

// lastSeq is the newest seq the hub has seen.
func (h *hub) lastSeq() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// floorSeq is the oldest seq a client may resume after.
func (h *hub) floorSeq() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.floor
}

// close ends every stream; later subscriptions fail.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		close(c.ch)
		delete(h.clients, c)
	}
}

func (h *hub) clientCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}
