package event

import (
	"context"
	"sync"
	"time"
)

// Sink receives events. Implementations must not block for long: the agent
// loop calls Emit inline.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Emitter stamps events with the session id, a per-session sequence number
// and a timestamp, then hands them to its sinks in order. Sequence numbers
// continue across turns (start from the session's last seq) so that SSE
// clients can resume with Last-Event-ID.
type Emitter struct {
	mu         sync.Mutex
	sessionID  string
	seq        int64
	sinks      []Sink
	now        func() time.Time
	follow     []follower
	nextFollow int
}

// follower is an event to emit right after the first event that matches.
type follower struct {
	match func(Event) bool
	e     Event
	id    int
}

// NewEmitter returns an emitter whose next event gets seq lastSeq+1.
func NewEmitter(sessionID string, lastSeq int64, sinks ...Sink) *Emitter {
	return &Emitter{sessionID: sessionID, seq: lastSeq, sinks: sinks, now: time.Now}
}

// Emit stamps e and delivers it. Delivery happens under the lock so that
// every sink sees events in seq order.
func (em *Emitter) Emit(e Event) { em.Publish(e) }

// Publish is Emit that also returns the stamped event (a runtime returns
// its result event to the caller exactly as the sinks saw it).
func (em *Emitter) Publish(e Event) Event {
	em.mu.Lock()
	defer em.mu.Unlock()
	e = em.deliverLocked(e)
	for i := 0; i < len(em.follow); i++ {
		if f := em.follow[i]; f.match(e) {
			em.follow = append(em.follow[:i], em.follow[i+1:]...)
			em.deliverLocked(f.e)
			break
		}
	}
	return e
}

// deliverLocked stamps e and hands it to the sinks.
func (em *Emitter) deliverLocked(e Event) Event {
	em.seq++
	e.Seq = em.seq
	if e.SessionID == "" {
		e.SessionID = em.sessionID
	}
	if e.Time.IsZero() {
		e.Time = em.now().UTC()
	}
	for _, s := range em.sinks {
		s.Emit(e)
	}
	return e
}

// EmitAfter emits e right after the next event that match accepts, with
// the following seq, so that a wrapper around a runtime can place an event
// after one the runtime emits (the rewind point after the turn's status).
// cancel drops e if it was not emitted yet.
func (em *Emitter) EmitAfter(match func(Event) bool, e Event) (cancel func()) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.nextFollow++
	id := em.nextFollow
	em.follow = append(em.follow, follower{match: match, e: e, id: id})
	return func() {
		em.mu.Lock()
		defer em.mu.Unlock()
		for i, f := range em.follow {
			if f.id == id {
				em.follow = append(em.follow[:i], em.follow[i+1:]...)
				return
			}
		}
	}
}

// AddSink attaches another sink for the events that follow.
func (em *Emitter) AddSink(s Sink) {
	em.mu.Lock()
	em.sinks = append(em.sinks, s)
	em.mu.Unlock()
}

// SetSessionID changes the id stamped on later events (a session created
// lazily, after the emitter).
func (em *Emitter) SetSessionID(id string) {
	em.mu.Lock()
	em.sessionID = id
	em.mu.Unlock()
}

// LastSeq is the seq of the last event emitted.
func (em *Emitter) LastSeq() int64 {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.seq
}

// AdvanceTo makes the next event's seq at least seq+1: another process ran
// a turn of the session meanwhile and numbered its events up to seq.
func (em *Emitter) AdvanceTo(seq int64) {
	em.mu.Lock()
	em.seq = max(em.seq, seq)
	em.mu.Unlock()
}

// Syncer is a sink that stores events asynchronously (the server's stored
// event log): Sync returns once every event up to seq it was given is
// stored, or with the error that kept one from it.
type Syncer interface {
	Sync(ctx context.Context, seq int64) error
}

// Stored is LastSeq once every Syncer sink has stored the events up to
// it: what a turn records with a step's messages, so a recorded message
// implies its events are stored and a replica resuming the turn after a
// crash numbers after them without a gap (the stored log is the truth).
func (em *Emitter) Stored(ctx context.Context) (int64, error) {
	em.mu.Lock()
	seq := em.seq
	sinks := em.sinks
	em.mu.Unlock()
	for _, s := range sinks {
		if sy, ok := s.(Syncer); ok {
			if err := sy.Sync(ctx, seq); err != nil {
				return seq, err
			}
		}
	}
	return seq, nil
}

// Fencer is a sink that stores a turn's events only while the turn's
// runner holds the session's lease (the server's stored event log): a
// runner that lost the lease (it stalled past its TTL and another took
// the turn over) must not add its late output to the log.
type Fencer interface {
	// Fence marks the events that follow as the turn of holder (the
	// session lease's holder id); "" ends the turn.
	Fence(holder string)
}

// Fence tells the Fencer sinks that the events that follow are the turn
// of lease holder holder ("" : the turn ended), in order with them.
func (em *Emitter) Fence(holder string) {
	em.mu.Lock()
	defer em.mu.Unlock()
	for _, s := range em.sinks {
		if f, ok := s.(Fencer); ok {
			f.Fence(holder)
		}
	}
}
