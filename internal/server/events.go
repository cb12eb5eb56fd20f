package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// events streams a session's events as server-sent events: each is one
// event-contract JSON object with `id:` = its seq. The stream starts after
// Last-Event-ID (header, or ?last_event_id= for the first connection of an
// EventSource, which cannot set headers); without either, it starts with
// the next event.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	// With a stored log, the hub first takes what this replica emitted
	// and what others stored (eventlog.go).
	s.syncLog(st.hub)
	s.catchUp(r.Context(), st)
	after, e := resumePoint(r, st)
	if e != nil {
		writeError(w, e)
		return
	}
	stored, storedTo, ok := s.backlogFromLog(r.Context(), st, after)
	if ok {
		after = storedTo
	}
	rc := http.NewResponseController(w)
	// Add under s.mu: Shutdown takes s.mu after cancelling s.base and
	// before waiting, so no stream is added once the wait may have begun.
	s.mu.Lock()
	if s.base.Err() != nil {
		s.mu.Unlock()
		writeError(w, errf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down"))
		return
	}
	s.streams.Add(1)
	s.mu.Unlock()
	defer s.streams.Done()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	// kick cuts a write blocked on a client that stopped reading, when the
	// hub drops it or shuts down; a write that blocks this long also ends.
	kick := func() { _ = rc.SetWriteDeadline(time.Now()) }
	var sent atomic.Int64 // the newest seq written, for keep-alives
	var direct func(frame) bool
	if r.ProtoMajor == 1 { // an HTTP/2 write waits for the connection's own goroutine: no gain
		direct = func(f frame) bool {
			_ = rc.SetWriteDeadline(time.Now().Add(directWriteTimeout))
			if _, err := w.Write(f.data); err != nil || rc.Flush() != nil {
				return false
			}
			sent.Store(f.seq)
			s.written(st.id, f)
			return true
		}
	}
	backlog, c, state := st.hub.subscribe(after, s.opts.ClientBuffer, s.opts.ClientBufferBytes, kick, direct)
	if state != resumeOK {
		s.writeReload(w, st, after, state)
		rc.Flush()
		return
	}
	defer st.hub.unsubscribe(c)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)) }
	deadline()
	for _, f := range append(stored, backlog...) {
		if s.writeFrame(w, f) != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	sent.Store(after)
	if n := len(backlog); n > 0 {
		sent.Store(backlog[n-1].seq)
	}
	// drain writes what is queued until the queue is empty (which lets
	// the hub write directly again); false: the stream ends.
	var batch []frame
	drain := func() bool {
		for {
			var ended bool
			batch, ended = c.next(batch)
			if len(batch) == 0 {
				return !ended // ended: fell behind, session deleted or shutdown; the client resumes
			}
			deadline()
			for _, f := range batch {
				if s.writeFrame(w, f) != nil {
					return false
				}
			}
			if rc.Flush() != nil {
				return false
			}
			sent.Store(batch[len(batch)-1].seq)
			s.written(st.id, batch...)
		}
	}
	if !drain() {
		return
	}
	stall := newStallWatch(r.Context())
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.wake:
			if !drain() {
				return
			}
		case <-tick.C:
			if stall.stalled() {
				return // it reads nothing: dropped, it resumes with Last-Event-ID
			}
			if !c.claim() { // an event is being written: no keep-alive needed
				continue
			}
			deadline()
			ka, _ := json.Marshal(event.Event{Type: event.KeepAlive, SessionID: st.id, Seq: sent.Load(), Time: time.Now().UTC()})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", ka); err != nil || rc.Flush() != nil {
				return
			}
			if !drain() {
				return
			}
		}
	}
}

// directWriteTimeout bounds an event written from the emitting goroutine
// (see client): the turn waits at most this long for a connection whose
// buffers are full (a client megabytes behind), once; then the client is
// dropped. It is long because the deadline runs on the wall clock: a
// loaded machine may not run the writing thread for a while between
// setting the deadline and writing, and a deadline missed that way would
// cut a client that was keeping up.
const directWriteTimeout = 500 * time.Millisecond

func resumePoint(r *http.Request, st *sessState) (int64, *apiError) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("last_event_id")
	}
	if v == "" {
		return st.hub.lastSeq(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errf(http.StatusBadRequest, "bad_last_event_id", "Last-Event-ID must be a non-negative event seq (got %q)", v)
	}
	return n, nil
}

func (s *Server) writeFrame(w http.ResponseWriter, f frame) error {
	_, err := w.Write(f.encoded())
	return err
}

// written reports live events just flushed to a client.
func (s *Server) written(id string, batch ...frame) {
	if s.opts.OnEventWritten == nil {
		return
	}
	for _, f := range batch {
		s.opts.OnEventWritten(id, f.seq, f.created)
	}
}

// writeReload tells a client it cannot resume where it asked: it must
// reload the session (GET /api/sessions/{id}) and resume from that
// last_seq (or stream_floor, while the ring has dropped part of the
// running turn).
func (s *Server) writeReload(w http.ResponseWriter, st *sessState, after int64, state resumeState) {
	var msg string
	switch state {
	case resumeAhead:
		msg = fmt.Sprintf("Last-Event-ID %d is unknown: it is ahead of this session's stream (the newest event is %d); reload the session's messages and resume from its last_seq",
			after, st.hub.lastSeq())
	case resumeClosed:
		msg = "the session's stream has closed (the server is shutting down or the session was deleted): reload the session"
	default:
		msg = fmt.Sprintf("events after seq %d are no longer held (the oldest resumable seq is %d): reload the session's messages and resume from its last_seq, or from its stream_floor when it has one",
			after, st.hub.floorSeq())
	}
	data, _ := json.Marshal(event.Event{Type: event.Status, SessionID: st.id, Seq: st.hub.lastSeq(), Time: time.Now().UTC(),
		Subtype: SubtypeReloadRequired, Message: msg})
	fmt.Fprintf(w, "data: %s\n\n", data)
}
