package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/event"
)

// frame is one event ready to write: encoded once, as the SSE lines
// written to every client ("id: SEQ\ndata: JSON\n\n").
type frame struct {
	seq     int64
	typ     event.Type
	created time.Time
	data    []byte
	// first is the seq of the oldest event coalesced into this frame (seq
	// when it holds one event). A coalesced frame keeps its event decoded
	// in ev and encodes data only when a resuming client needs it.
	first int64
	ev    *event.Event
	out   []byte // ev's output, kept apart so appending stays cheap
	dirty bool   // data is stale
}

func (f *frame) size() int { return len(f.data) + len(f.out) }

// sseFrame encodes e as its SSE lines, in one buffer.
func sseFrame(e event.Event) []byte {
	var b bytes.Buffer
	b.Grow(256)
	b.WriteString("id: ")
	b.Write(strconv.AppendInt(b.AvailableBuffer(), e.Seq, 10))
	b.WriteString("\ndata: ")
	// Encode ends with a newline: the data line's end.
	if err := json.NewEncoder(&b).Encode(e); err != nil { // cannot happen for the flat event struct; keep the stream going
		return sseFrame(event.Event{Type: event.Error, SessionID: e.SessionID, Seq: e.Seq, Time: e.Time,
			Error: "event could not be encoded"})
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// eventJSON is the event's JSON object inside SSE lines made by sseFrame.
func eventJSON(data []byte) []byte {
	_, js, ok := bytes.Cut(data, []byte("\ndata: "))
	if !ok {
		return nil
	}
	return bytes.TrimSuffix(js, []byte("\n\n"))
}

// maxCoalesced bounds the tool output one coalesced replay frame keeps:
// tool_output is for display (the complete output is in tool_result), so a
// resuming client gets the tail of a long run, not all 100 MB of it.
const maxCoalesced = 64 << 10

// coalescedNote starts a coalesced output whose head was dropped.
const coalescedNote = "[… earlier output not kept for replay; the tool_result has it all]\n"

// hub keeps a session's recent events in a ring bounded by count and bytes
// and fans new ones out to its SSE clients. Consecutive tool_output events
// of one call are coalesced in the ring. Emit runs inline in the turn
// (under the emitter's lock), so it never blocks: a client that falls more
// than its buffer behind is dropped (and its blocked write cut) and
// resumes later with Last-Event-ID.
type hub struct {
	mu       sync.Mutex
	frames   []frame // frames[head:] are held, oldest first
	head     int
	bytes    int // held bytes
	max      int
	maxBytes int
	floor    int64 // every event with seq > floor is held (or not yet emitted)
	last     int64 // seq of the newest event seen
	clients  map[*client]struct{}
	closed   bool
	// answered notes permission requests that got a reply, so a late
	// second reply gets 409 even after the broker forgot the request.
	onReply func(requestID string)
	// listeners are in-process front ends following the session (the
	// chat bridges, hub_listen.go), called in seq order.
	listeners map[*listener]struct{}
}

// client is one SSE stream: a queue the hub appends to and the stream's
// goroutine empties, woken through wake. It grows only while the client
// lags, so an idle subscriber costs a few hundred bytes. The hub ends it
// when it falls behind, when the session goes away and on shutdown; the
// stream then writes what is queued and stops. kick cuts a write the
// stream is blocked in (a client that stopped reading).
//
// direct, when set, writes one event to the connection from the emitting
// goroutine itself. push uses it while nothing is queued and the stream's
// goroutine is not writing, so an event reaches a client that keeps up
// without waiting for that goroutine to be scheduled: on a busy machine
// that wait was nearly all of an event's latency. It is bounded by a
// short write deadline; a connection that cannot take the event in time
// (megabytes unread) fails it, and the client is dropped and resumes.
type client struct {
	mu       sync.Mutex
	queue    []frame
	bytes    int64 // data bytes queued
	ended    bool
	writing  bool // the stream's goroutine is writing: push must queue
	max      int
	maxBytes int64
	wake     chan struct{} // capacity 1: "the queue changed"
	kick     func()
	direct   func(frame) bool
}

func newClient(max, maxBytes int, kick func(), direct func(frame) bool) *client {
	// The stream's goroutine writes the backlog first.
	return &client{max: max, maxBytes: int64(maxBytes), wake: make(chan struct{}, 1), kick: kick, direct: direct, writing: true}
}

// push hands f to the client: written at once through direct when the
// stream is idle, else queued. False when the write failed or queueing
// would put the client more than its bounds behind: drop it.
func (c *client) push(f frame) bool {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return false
	}
	if c.direct != nil && !c.writing && len(c.queue) == 0 {
		// c.mu is held through the (deadline-bounded) write, so the
		// stream's goroutine cannot start writing meanwhile.
		ok := c.direct(f)
		c.mu.Unlock()
		return ok
	}
	if len(c.queue) >= c.max || c.bytes+int64(len(f.data)) > c.maxBytes {
		c.mu.Unlock()
		return false
	}
	c.queue = append(c.queue, f)
	c.bytes += int64(len(f.data))
	c.mu.Unlock()
	c.signal()
	return true
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// claim lets the stream's goroutine write something of its own (a
// keep-alive) when it is idle; next releases it.
func (c *client) claim() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writing || len(c.queue) > 0 {
		return false
	}
	c.writing = true
	return true
}

// end makes the stream stop once it has written what is queued.
func (c *client) end() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.signal()
}

// next takes everything queued, handing back spare (the previous batch,
// written) for the queue to reuse; ended says the stream stops after it.
// The stream's goroutine writes while batches come; an empty one makes
// it idle, and push may write directly again.
func (c *client) next(spare []frame) (batch []frame, ended bool) {
	clear(spare) // let written frames go
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, c.queue, c.bytes = c.queue, spare[:0], 0
	c.writing = len(batch) > 0
	return batch, c.ended
}

func newHub(capacity, maxBytes int, lastSeq int64, onReply func(string)) *hub {
	return &hub{max: capacity, maxBytes: maxBytes, floor: lastSeq, last: lastSeq,
		clients: map[*client]struct{}{}, onReply: onReply}
}

// Emit implements event.Sink.
func (h *hub) Emit(e event.Event) {
	data := sseFrame(e)
	if e.Type == event.PermissionReply && h.onReply != nil {
		h.onReply(e.RequestID)
	}
	f := frame{seq: e.Seq, first: e.Seq, typ: e.Type, created: e.Time, data: data}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Seq <= h.last { // a second emitter replaying old numbers: ignore
		return
	}
	if !h.coalesce(e) {
		h.push(f)
	}
	h.last = e.Seq
	for c := range h.clients {
		if !c.push(f) {
			h.drop(c)
		}
	}
	for l := range h.listeners {
		l.sink.Emit(e)
	}
}

func (h *hub) drop(c *client) {
	c.end()
	delete(h.clients, c)
	if c.kick != nil {
		c.kick()
	}
}

// coalesce folds a tool_output event into the newest held frame when that
// is output of the same call and stream.
func (h *hub) coalesce(e event.Event) bool {
	if e.Type != event.ToolOutput || len(h.frames) == h.head || e.Meta != nil {
		return false
	}
	lf := &h.frames[len(h.frames)-1]
	if lf.typ != event.ToolOutput {
		return false
	}
	if lf.ev == nil { // start coalescing: decode the frame once
		var prev event.Event
		if json.Unmarshal(eventJSON(lf.data), &prev) != nil || prev.Meta != nil {
			return false
		}
		lf.ev, lf.out = &prev, []byte(prev.Output)
		lf.ev.Output = ""
		h.bytes -= len(lf.data)
		lf.data = nil
		h.bytes += lf.size()
	}
	if lf.ev.ToolUseID != e.ToolUseID || lf.ev.Stream != e.Stream {
		return false
	}
	h.bytes -= lf.size()
	lf.out = append(lf.out, e.Output...)
	if len(lf.out) > 2*maxCoalesced { // trim the head, amortised
		cut := len(lf.out) - maxCoalesced
		for cut < len(lf.out) && !utf8.RuneStart(lf.out[cut]) {
			cut++
		}
		lf.out = append([]byte(coalescedNote), lf.out[cut:]...)
	}
	lf.seq, lf.created, lf.dirty = e.Seq, e.Time, true
	lf.ev.Seq, lf.ev.Time = e.Seq, e.Time
	h.bytes += lf.size()
	h.evict(0, 0)
	return true
}

// encoded returns f's data, encoding a coalesced frame when stale.
func (f *frame) encoded() []byte {
	if f.ev != nil && (f.dirty || f.data == nil) {
		ev := *f.ev
		ev.Output = string(f.out)
		f.data = sseFrame(ev)
		f.dirty = false
	}
	return f.data
}

func (h *hub) push(f frame) {
	h.evict(1, f.size())
	h.frames = append(h.frames, f)
	h.bytes += f.size()
}

// evict drops the oldest frames until adding more frames of room bytes
// fits the count and byte bounds. The newest held frame stays when nothing
// is added (it was just grown by coalescing).
func (h *hub) evict(adding, room int) {
	keep := 0
	if adding == 0 {
		keep = 1
	}
	for {
		n := len(h.frames) - h.head
		if n <= keep || (n+adding <= h.max && h.bytes+room <= h.maxBytes) {
			break
		}
		old := &h.frames[h.head]
		h.floor = old.seq
		h.bytes -= old.size()
		*old = frame{}
		h.head++
	}
	if h.head > 64 && h.head*2 > len(h.frames) { // compact the queue
		h.frames = append(h.frames[:0], h.frames[h.head:]...)
		h.head = 0
	}
}

// resumeState says whether a client may resume after a seq.
type resumeState int

const (
	resumeOK resumeState = iota
	resumeGone
	resumeAhead
	resumeClosed
)

// subscribe returns the held events after seq and a client that receives
// every later one. A coalesced frame the client saw part of is skipped
// (tool_output is display-only). The state says why not when events after
// seq are no longer held, or seq is ahead of the stream: the client must
// reload the session.
func (h *hub) subscribe(after int64, buffer, maxBytes int, kick func(), direct func(frame) bool) (backlog []frame, c *client, st resumeState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, nil, resumeClosed
	case after > h.last:
		return nil, nil, resumeAhead
	case after < h.floor:
		return nil, nil, resumeGone
	}
	for i := h.head; i < len(h.frames); i++ {
		f := &h.frames[i]
		if f.first > after {
			f.encoded()
			backlog = append(backlog, *f)
		}
	}
	c = newClient(buffer, maxBytes, kick, direct)
	h.clients[c] = struct{}{}
	return backlog, c, resumeOK
}

func (h *hub) unsubscribe(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		c.end()
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

// heldBytes is what the ring holds.
func (h *hub) heldBytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// close ends every stream, cutting blocked writes; later subscriptions fail.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		h.drop(c)
	}
}

func (h *hub) clientCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}
