package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// sessState is the server's view of one session: its event hub, its live
// session once opened, and its queue of prompts. One worker goroutine per
// busy session runs the queued turns in order.
type sessState struct {
	id  string
	hub *hub

	mu      sync.Mutex
	live    *session.Live
	queue   []queuedTurn
	running bool
	cancel  context.CancelFunc
	current string // prompt of the running turn
	deleted bool
	// The snapshot boundary: GET /api/sessions/{id} returns the first
	// boundaryMsgs stored messages and last_seq = boundarySeq; every event
	// after boundarySeq belongs to what those messages leave out (the
	// running turn, or nothing). A reload therefore loses and repeats
	// nothing however a turn is interleaved with the request.
	boundarySeq  int64
	boundaryMsgs int
	wg           sync.WaitGroup
	// idleSince is when the idle sweep first saw the session unused.
	idleSince time.Time
	// handedOver: a drain interrupted this session's durable turn to hand
	// it to another replica (durable.go); set once the turn ended.
	handedOver bool
	// dropped gives back the per-user place of a queued turn dropped
	// before it ran (limits.go).
	dropped func(queuedTurn)
	// mcpWaited: the live session's MCP servers had their moment to
	// connect before its first turn here.
	mcpWaited bool
}

// snapshot is a consistent view for GET /api/sessions/{id}.
type snapshot struct {
	boundarySeq  int64
	boundaryMsgs int
	running      bool
	queued       []string
	current      string
}

func (st *sessState) snapshot() snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.running && st.live != nil {
		// Idle: every message is stored, so the boundary is simply now
		// (a mode change may have emitted events since the last turn).
		st.boundarySeq = st.live.Events().LastSeq()
	}
	return snapshot{boundarySeq: st.boundarySeq, boundaryMsgs: st.boundaryMsgs, running: st.running,
		queued: queuedTexts(st.queue), current: st.current}
}

// state returns the session's state, creating it from the stored session.
func (s *Server) state(ctx context.Context, id string) (*sessState, *apiError) {
	s.mu.Lock()
	st, ok := s.sessions[id]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	rec, err := s.mgr.Find(ctx, id)
	if err != nil {
		return nil, storeError(err, "session", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[rec.ID]; ok {
		return st, nil
	}
	st = s.newState(rec)
	s.sessions[rec.ID] = st
	return st, nil
}

func (s *Server) newState(rec session.Summary) *sessState {
	return &sessState{id: rec.ID, boundarySeq: rec.LastSeq, boundaryMsgs: rec.MessageCount, hub: s.newHub(rec.LastSeq), dropped: s.turnRefused}
}

// newHub is a session's event hub, continuing after lastSeq.
func (s *Server) newHub(lastSeq int64) *hub {
	return newHub(s.opts.RingSize, s.opts.RingBytes, lastSeq, s.answered.add)
}

// adopt registers a session just opened by POST /api/sessions with h, the
// hub it was opened with as a sink.
func (s *Server) adopt(l *session.Live, h *hub) *sessState {
	rec := l.Info()
	st := &sessState{id: rec.ID, boundarySeq: rec.LastSeq, boundaryMsgs: rec.MessageCount, hub: h, live: l, dropped: s.turnRefused}
	s.mu.Lock()
	s.sessions[rec.ID] = st
	s.mu.Unlock()
	return st
}

// ensureLive opens the live session on first use. Call with st.mu held.
func (s *Server) ensureLive(ctx context.Context, st *sessState) (*session.Live, error) {
	st.idleSince = time.Time{} // in use: the idle sweep starts counting again
	if st.live != nil {
		return st.live, nil
	}
	// The hub is a sink from the start so events emitted while the session
	// is equipped (MCP servers starting) reach SSE clients too.
	l, err := s.mgr.Open(ctx, session.OpenRequest{ID: st.id, Sinks: []event.Sink{s.sinkFor(st.hub)}, AnswerByReply: true, FlagRules: s.opts.FlagRules})
	if err != nil {
		return nil, err
	}
	st.live, st.mcpWaited = l, false
	return l, nil
}

var errStopping = errors.New("the server is shutting down")

// enqueue runs prompt now or after the turns before it. position is the
// prompt's place in the queue (1 = next), 0 when it started at once.
func (s *Server) enqueue(ctx context.Context, st *sessState, t queuedTurn) (queued bool, position int, err error) {
	if s.opts.Turns != nil {
		return s.enqueueDurable(ctx, st, t)
	}
	if s.base.Err() != nil {
		return false, 0, errStopping
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.deleted {
		return false, 0, session.ErrNotFound
	}
	if _, err := s.ensureLive(ctx, st); err != nil {
		return false, 0, fmt.Errorf("open session %s: %w", st.id, err)
	}
	if st.running {
		st.queue = append(st.queue, t)
		return true, len(st.queue), nil
	}
	st.running = true
	st.wg.Add(1)
	go s.work(st, t)
	return false, 0, nil
}

// queuedTurn is a prompt waiting to run, with its per-turn options.
type queuedTurn struct {
	text string
	opts session.TurnOptions
	user string // who sent it, for per-user limits (limits.go); "" the server token
	// id names the turn (its durable workflow's id); slot: it holds one
	// of its user's places under serve.user_max_concurrent_turns.
	id   string
	slot bool
	// resumed: a durable turn another replica began; it waits for the
	// dead replica's session lease to lapse instead of failing busy.
	resumed bool
}

func queuedTexts(q []queuedTurn) []string {
	out := make([]string, len(q))
	for i, t := range q {
		out[i] = t.text
	}
	return out
}

// work runs t and then every queued turn, in order.
func (s *Server) work(st *sessState, t queuedTurn) {
	defer st.wg.Done()
	for {
		s.runTurn(s.base, st, t)
		st.mu.Lock()
		if len(st.queue) == 0 || st.deleted || s.base.Err() != nil {
			q := st.queue
			st.queue, st.running = nil, false
			st.mu.Unlock()
			st.drop(q)
			return
		}
		t, st.queue = st.queue[0], st.queue[1:]
		st.mu.Unlock()
	}
}

// runTurn runs t on st's live session under parent (the server's base,
// or a durable turn's own context, which a drain does not cancel).
func (s *Server) runTurn(parent context.Context, st *sessState, t queuedTurn) {
	prompt := t.text
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	st.mu.Lock()
	l := st.live
	st.cancel, st.current = cancel, prompt
	st.boundarySeq, st.boundaryMsgs = l.Events().LastSeq(), l.Info().MessageCount
	waitMCP := !st.mcpWaited
	st.mcpWaited = true
	st.mu.Unlock()

	// As every front end does, give the session's MCP servers a moment to
	// connect before its first turn, so their tools are offered from the
	// start (a prompt sent right after the session opened raced a node
	// server's start, and its tool was unknown to the turn).
	if waitMCP {
		l.WaitMCP(ctx, app.DefaultMCPWait)
	}

	if ls := s.sinkOf(st.hub); ls != nil {
		ls.newTurn()
	}
	// Every client sees the prompt that started the turn, whoever sent it
	// (a resumed turn's was shown when it began).
	if !t.opts.Resume {
		l.Events().Emit(session.UserMessage(prompt, t.opts.Origin))
	}
	ended := s.turnRunning(&t)
	res, err := s.run(ctx, l, prompt, t.opts, t.resumed)
	failed := err != nil && res.Type != event.Result
	// A drain hands the turn over only if it ended interrupted (durable.go):
	// decided by its result as it was emitted, or here, before the error
	// end below is emitted, by whether it was interrupted.
	handed := false
	if ls := s.sinkOf(st.hub); ls != nil {
		if failed {
			handed = ls.decide(ctx.Err() != nil)
		} else {
			handed = ls.handed()
		}
	}
	ended(res.CostUSD, handed)
	if failed {
		s.log.Error("turn failed", "session", st.id, "err", err)
		msg := err.Error()
		l.Events().Emit(event.Event{Type: event.Error, Error: msg})
		l.Events().Emit(event.Event{Type: event.Result, Subtype: event.SubtypeError, IsError: true, Error: msg})
		l.Events().Emit(event.Event{Type: event.Done})
		if ls := s.sinkOf(st.hub); ls == nil || !ls.wasRefused() {
			s.saveSeq(l) // not for a turn whose lease was lost (eventfence.go)
		}
	}
	st.mu.Lock()
	st.cancel, st.current = nil, ""
	st.boundarySeq, st.boundaryMsgs = l.Events().LastSeq(), l.Info().MessageCount
	st.mu.Unlock()
}

// run runs the turn; a resumed durable turn (its replica died holding the
// session's lease) waits for that lease to lapse rather than fail busy.
func (s *Server) run(ctx context.Context, l *session.Live, prompt string, opts session.TurnOptions, resumed bool) (event.Event, error) {
	deadline := time.Now().Add(leaseTakeover)
	for {
		res, err := l.Run(ctx, prompt, opts)
		if !resumed || !errors.Is(err, session.ErrBusy) || !time.Now().Before(deadline) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// leaseTakeover bounds how long a durable turn waits for a session's
// lease: past the lease's TTL (15 s), so a dead holder's lease lapses.
const leaseTakeover = 25 * time.Second

// saveSeq stores the emitter's seq after events emitted outside a turn, so
// the numbering survives a restart.
func (s *Server) saveSeq(l *session.Live) {
	if err := l.SaveSeq(context.Background()); err != nil {
		s.log.Error("save last seq", "session", l.ID(), "err", err)
	}
}

// interrupt stops the running turn and drops the queued prompts.
func (st *sessState) interrupt() (wasRunning bool, dropped int) {
	st.mu.Lock()
	q := st.queue
	dropped = len(q)
	st.queue = nil
	wasRunning = st.running
	if st.cancel != nil {
		st.cancel()
		wasRunning = true
	}
	st.mu.Unlock()
	st.drop(q)
	return wasRunning, dropped
}

// drop gives back the places of queued turns that will not run.
func (st *sessState) drop(q []queuedTurn) {
	if st.dropped == nil {
		return
	}
	for _, t := range q {
		st.dropped(t)
	}
}

// stop interrupts, waits for the worker (which stores what the turn
// produced) and releases the live session.
func (st *sessState) stop(ctx context.Context, markDeleted bool) error {
	st.mu.Lock()
	if markDeleted {
		st.deleted = true
	}
	st.mu.Unlock()
	st.interrupt()
	done := make(chan struct{})
	go func() { st.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("wait for session %s to stop: %w", st.id, ctx.Err())
	}
	st.hub.close()
	st.mu.Lock()
	l := st.live
	st.live = nil
	st.mu.Unlock()
	if l != nil {
		l.Close()
	}
	return nil
}

// messagesAt returns the stored messages up to the snapshot boundary.
func (s *Server) messagesAt(ctx context.Context, id string, n int) ([]message.Message, error) {
	msgs, err := s.mgr.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	if n < len(msgs) {
		msgs = msgs[:n]
	}
	return msgs, nil
}
