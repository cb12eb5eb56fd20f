package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/store"
)

// EventLog is the stored log of session events (store.Events) that makes
// several `tandem serve` replicas one stream: an event reaches a session's
// hub, and so its SSE clients, only once it is stored, so a client that
// saw it can resume with Last-Event-ID on any replica; a replica hears
// other replicas' events through WatchEvents and reads them from the log.
type EventLog = store.Events

// logSink stores a session's events in batches, in emission order, and
// hands each to the hub once its batch is committed. Emit never blocks
// the turn: it queues; one goroutine per sink writes.
type logSink struct {
	log  EventLog
	hub  *hub
	slog *slog.Logger

	mu      sync.Mutex
	pending []event.Event
	busy    bool // the writer goroutine runs
	idle    *sync.Cond
	// given is the last seq handed to Emit; stored the last the writer
	// is done with (stored, or given up on: lost says why, up to lostTo).
	// Sync waits on them (eventsync.go).
	given, stored int64
	lost          error
	lostTo        int64
	progress      chan struct{} // closed (and replaced) when stored rises
	// hand is what a drain does to the session's running turn
	// (durable.go): armed, the drain will hand the turn over if it ends
	// interrupted; handed, it did: the interrupted turn's end here (its
	// result, done or error) is stored and shown as a handing_over status
	// saying note under the same seq instead, since the turn goes on
	// elsewhere: a client sees one result, and the numbering has no gap.
	// A turn that ends otherwise (it completed as the drain timed out)
	// keeps its end and completes its workflow.
	hand handState
	note string
	// holder is the session lease's holder while a turn runs here
	// (event.Fencer); holders[i] is pending[i]'s. refused: the lease was
	// lost to another runner (this replica stalled and the turn moved):
	// nothing more of the turn is stored or shown (eventfence.go).
	holder  string
	holders []string
	refused bool
}

// handState: see logSink.hand.
type handState int

const (
	handNone handState = iota
	handArmed
	handHanded
)

func newLogSink(l EventLog, h *hub, lg *slog.Logger) *logSink {
	s := &logSink{log: l, hub: h, slog: lg, progress: make(chan struct{})}
	s.idle = sync.NewCond(&s.mu)
	return s
}

// Emit implements event.Sink.
func (s *logSink) Emit(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hand == handArmed && e.Type == event.Result {
		// The turn's end decides, in emission order: a result emitted
		// before the drain armed the sink passed through unarmed, and
		// runJob (which settles after the turn) finds nothing handed.
		s.decideLocked(e.Subtype == event.SubtypeInterrupted)
	}
	if s.hand == handHanded && (e.Type == event.Result || e.Type == event.Done || e.Type == event.Error) {
		e = event.Event{Type: event.Status, Subtype: SubtypeHandingOver, SessionID: e.SessionID, Seq: e.Seq, Time: e.Time, Message: s.note}
	}
	if s.refused {
		s.dropLocked(e)
		return
	}
	s.pending = append(s.pending, e)
	s.holders = append(s.holders, s.holder)
	s.given = max(s.given, e.Seq)
	if !s.busy {
		s.busy = true
		go s.write()
	}
}

// write stores what is pending, batch after batch, until nothing is.
func (s *logSink) write() {
	for {
		s.mu.Lock()
		batch, holders := s.pending, s.holders
		s.pending, s.holders = nil, nil
		if len(batch) == 0 {
			s.busy = false
			s.idle.Broadcast()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		err := s.store(batch, fenceOf(holders))
		refused := errors.Is(err, store.ErrLeaseLost)
		s.done(batch, err, refused) // a refused batch refuses the rest of the turn
		if refused {
			continue // shown to no client
		}
		for _, e := range batch {
			s.hub.Emit(e)
		}
	}
}

// store writes batch, retrying a while: the log is the truth, so an event
// is shown to nobody before it is stored or given up on (logged).
func (s *logSink) store(batch []event.Event, holder string) error {
	rows := make([]EventRow, len(batch))
	for i, e := range batch {
		js, err := json.Marshal(e)
		if err != nil { // the flat event struct always encodes
			js = []byte(`{}`)
		}
		rows[i] = EventRow{Seq: e.Seq, Type: string(e.Type), JSON: js}
	}
	id := batch[0].SessionID
	var err error
	for try := 0; try < 20; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = s.append(ctx, id, holder, rows)
		cancel()
		if err == nil {
			return nil
		}
		if errors.Is(err, store.ErrLeaseLost) {
			s.slog.Warn("a turn's late events not stored: the session's lease was lost to another runner", "session", id, "from_seq", rows[0].Seq, "to_seq", rows[len(rows)-1].Seq)
			return fmt.Errorf("events %d to %d not stored: %w", rows[0].Seq, rows[len(rows)-1].Seq, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	s.slog.Error("events not stored: other replicas will not stream them", "session", id, "from_seq", rows[0].Seq, "to_seq", rows[len(rows)-1].Seq, "err", err)
	return fmt.Errorf("events %d to %d not stored: %w", rows[0].Seq, rows[len(rows)-1].Seq, err)
}

// sync waits until everything emitted so far is stored and in the hub.
func (s *logSink) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.busy {
		s.idle.Wait()
	}
}

// arm makes the running turn's end, if it ends interrupted, a
// handing_over status saying note (see logSink.hand).
func (s *logSink) arm(note string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hand == handNone {
		s.hand, s.note = handArmed, note
	}
}

// decide settles an armed sink before the turn's end is emitted by the
// server itself (runTurn's error end): handed over if interrupted. It
// reports whether the turn is handed over.
func (s *logSink) decide(interrupted bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decideLocked(interrupted)
	return s.hand == handHanded
}

func (s *logSink) decideLocked(interrupted bool) {
	if s.hand != handArmed {
		return
	}
	s.hand = handNone
	if interrupted {
		s.hand = handHanded
	}
}

// handed reports whether the turn was handed over.
func (s *logSink) handed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hand == handHanded
}

// settle is runJob's answer once the turn's end is emitted: whether it
// was handed over. An armed sink whose turn ended before it was armed
// is disarmed: that turn completed.
func (s *logSink) settle() bool {
	return s.decide(false)
}

// append stores rows, under the lease of holder when given and the log
// can tell.
func (s *logSink) append(ctx context.Context, id, holder string, rows []EventRow) error {
	if h, ok := s.log.(store.HeldEvents); ok && holder != "" {
		return h.AppendEventsHeld(ctx, id, holder, rows)
	}
	return s.log.AppendEvents(ctx, id, rows)
}

// EventRow is a stored event.
type EventRow = store.StoredEvent

// sinkFor is the sink a session's emitter gets: its hub, behind the event
// log when the server has one.
func (s *Server) sinkFor(h *hub) event.Sink {
	if s.opts.EventLog == nil {
		return h
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ls := newLogSink(s.opts.EventLog, h, s.log)
	if s.logSinks == nil {
		s.logSinks = map[*hub]*logSink{}
	}
	s.logSinks[h] = ls
	return ls
}

// sinkOf is h's log sink (nil without an event log).
func (s *Server) sinkOf(h *hub) *logSink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logSinks[h]
}

// syncLog waits until the events h's session emitted so far are stored
// and in h (nothing to wait for without a log, or on a replica that does
// not run the session).
func (s *Server) syncLog(h *hub) {
	s.mu.Lock()
	ls := s.logSinks[h]
	s.mu.Unlock()
	if ls != nil {
		ls.sync()
	}
}

// catchUp brings st's hub up to the stored log: the events another
// replica ran (or this one stored before the hub existed).
func (s *Server) catchUp(ctx context.Context, st *sessState) {
	if s.opts.EventLog == nil {
		return
	}
	for {
		after := st.hub.lastSeq()
		rows, err := s.opts.EventLog.EventsAfter(ctx, st.id, after, 1000)
		if err != nil {
			s.log.Warn("read the session's stored events", "session", st.id, "err", err)
			return
		}
		for _, r := range rows {
			var e event.Event
			if json.Unmarshal(r.JSON, &e) != nil {
				continue
			}
			st.hub.Emit(e)
		}
		if len(rows) < 1000 {
			return
		}
	}
}

// follow wakes the hubs of sessions another replica (or this one, through
// another handle) appended events to, until the server stops. Wake-ups
// are folded per session, and each woken session catches up in its own
// goroutine (one at a time per session), so a busy session never delays
// another's events behind its read.
func (s *Server) follow() {
	if s.opts.EventLog == nil {
		return
	}
	var mu sync.Mutex
	dirty := map[*sessState]bool{} // woken; true while its catch-up runs
	again := map[*sessState]bool{} // woken again during its catch-up
	catchUp := func(st *sessState) {
		for {
			s.catchUp(s.base, st)
			mu.Lock()
			if !again[st] {
				delete(dirty, st)
				mu.Unlock()
				return
			}
			delete(again, st)
			mu.Unlock()
		}
	}
	_ = s.opts.EventLog.WatchEvents(s.base, func(id string, _ int64) {
		s.mu.Lock()
		var sts []*sessState
		if st, ok := s.sessions[id]; ok {
			sts = append(sts, st)
		} else if id == "" { // wake-ups may have been missed: every session
			for _, st := range s.sessions {
				sts = append(sts, st)
			}
		}
		s.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		for _, st := range sts {
			if dirty[st] {
				again[st] = true
				continue
			}
			dirty[st] = true
			go catchUp(st)
		}
	})
}

// backlogFromLog returns the stored events after seq after and before
// the hub's floor: what a client resuming on a replica whose ring never
// held them (or dropped them) is owed first.
func (s *Server) backlogFromLog(ctx context.Context, st *sessState, after int64) ([]frame, int64, bool) {
	if s.opts.EventLog == nil || after >= st.hub.floorSeq() {
		return nil, after, true
	}
	floor := st.hub.floorSeq()
	rows, err := s.opts.EventLog.EventsAfter(ctx, st.id, after, int(floor-after))
	if err != nil {
		s.log.Warn("read the session's stored events", "session", st.id, "err", err)
		return nil, after, false
	}
	var out []frame
	next := after
	for _, r := range rows {
		if r.Seq != next+1 { // a gap in the log: the client must reload
			break
		}
		var e event.Event
		if json.Unmarshal(r.JSON, &e) != nil {
			break
		}
		out = append(out, frame{seq: e.Seq, first: e.Seq, typ: e.Type, created: e.Time, data: sseFrame(e)})
		next = r.Seq
	}
	return out, next, next >= floor
}
