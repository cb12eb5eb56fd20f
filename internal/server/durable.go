package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// Turns as durable workflows (docs/api.md, Replicas): with Options.Turns
// set, a prompt posted to any replica is enqueued on the turn queue of its
// session's workspace (turnqueue, over DBOS), and whichever replica
// reaching that workspace dequeues it runs it here, in runJob. Without
// it, turns run in the process that got the prompt (runner.go's queue).

// SubtypeTurnMoved marks the status event a resumed turn starts with: the
// replica that ran it stopped, this one goes on from what was stored and
// redoes the step in flight.
const SubtypeTurnMoved = "turn_moved"

// SubtypeHandingOver marks the status event that stands, on a draining
// replica, for the end of a turn it interrupted to hand it over: the turn
// goes on on another replica, which starts with turn_moved.
const SubtypeHandingOver = "handing_over"

// defaultQueue takes the turns of sessions under no registered workspace;
// every replica serves it.
const defaultQueue = "tandem-turns"

// queueOf names the turn queue of a workspace folder.
func queueOf(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return "tandem-ws-" + hex.EncodeToString(sum[:8])
}

// queueFor is the queue of the deepest registered workspace holding dir.
func (s *Server) queueFor(ctx context.Context, dir string) string {
	ws, err := s.workspaces.ListWorkspaces(ctx)
	if err != nil {
		return defaultQueue
	}
	best := ""
	for _, w := range ws {
		if within(w.Path, dir) && len(w.Path) > len(best) {
			best = w.Path
		}
	}
	if best == "" {
		return defaultQueue
	}
	return queueOf(best)
}

func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// turnQueues are the queues this replica takes turns from: the default
// one and those of the workspaces whose folder it reaches.
func (s *Server) turnQueues(ctx context.Context) []string {
	qs := []string{defaultQueue}
	for _, p := range s.workspacePaths(ctx) {
		qs = append(qs, queueOf(p))
	}
	return qs
}

// startTurns launches the turn engine with this server as its runner.
func (s *Server) startTurns() error {
	if s.opts.Turns == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.base, 30*time.Second)
	defer cancel()
	if err := s.opts.Turns.Start(s.runJob, s.turnQueues(ctx), turnqueue.WithSeq(s.turnSeq)); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// enqueueDurable puts t on its session's workspace queue. position counts
// the session's turns ahead of it (running or queued, on any replica).
func (s *Server) enqueueDurable(ctx context.Context, st *sessState, t queuedTurn) (queued bool, position int, err error) {
	rec, err := s.mgr.Find(ctx, st.id)
	if err != nil {
		return false, 0, err
	}
	opts, err := json.Marshal(t.opts)
	if err != nil {
		return false, 0, fmt.Errorf("encode the turn's options: %w", err)
	}
	ahead, err := s.opts.Turns.Pending(ctx, st.id)
	if err != nil {
		return false, 0, err
	}
	if t.id == "" {
		t.id = turnqueue.NewID(st.id)
	}
	if _, err := s.opts.Turns.EnqueueAs(ctx, t.id, turnqueue.Job{Session: st.id, Prompt: t.text, Options: opts, User: t.user,
		Queue: s.queueFor(ctx, rec.Cwd)}); err != nil {
		return false, 0, err
	}
	return len(ahead) > 0, len(ahead), nil
}

// runJob runs a dequeued turn here: the workflow's body. A resumed turn
// (its replica stopped) starts with a turn_moved status and continues from
// the stored conversation.
func (s *Server) runJob(ctx context.Context, id string, job turnqueue.Job, res *turnqueue.Resume) error {
	st, e := s.state(ctx, job.Session)
	if e != nil {
		return fmt.Errorf("run turn %s: %s", id, e.Message) // deleted meanwhile: nothing to run
	}
	var t queuedTurn
	if err := json.Unmarshal(job.Options, &t.opts); err != nil {
		return fmt.Errorf("run turn %s: decode its options: %w", id, err)
	}
	if string(t.opts.JSONSchema) == "null" { // no schema: encoded as null, decoded as those bytes
		t.opts.JSONSchema = nil
	}
	// Its user's place (if it holds one) is given back when it ends.
	t.text, t.user, t.id, t.slot = job.Prompt, job.User, id, job.User != ""
	st.mu.Lock()
	if st.deleted {
		st.mu.Unlock()
		return fmt.Errorf("run turn %s: %w", id, session.ErrNotFound)
	}
	l, err := s.ensureLive(ctx, st)
	if err != nil {
		st.mu.Unlock()
		return fmt.Errorf("run turn %s: open session %s: %w", id, st.id, err)
	}
	st.running = true
	st.wg.Add(1)
	st.mu.Unlock()
	var once sync.Once
	done := func() {
		once.Do(func() {
			st.mu.Lock()
			st.running = false
			st.mu.Unlock()
			st.wg.Done()
		})
	}
	defer done()
	s.advancePastLog(ctx, st, l)
	if res != nil {
		t.resumed = true
		s.awaitLease(ctx, st.id) // failover.go
		msgs, err := s.mgr.Messages(ctx, st.id)
		if err == nil && len(msgs) > res.Messages {
			t.opts.Resume = true // the prompt is stored: go on from it
		}
		var calls []unfinishedCall
		if t.opts.Resume {
			calls = unfinishedCalls(msgs, l.Tools().Lookup())
		}
		moved := event.Event{Type: event.Status, Subtype: SubtypeTurnMoved,
			Message: fmt.Sprintf("the replica running this turn (%s) stopped; replica %s goes on from what was stored, redoing the step in flight%s", res.From, s.replica.id, unfinishedNote(calls))}
		if len(calls) > 0 {
			moved.Meta = map[string]any{"unfinished_tool_calls": calls}
		}
		l.Events().Emit(moved)
		s.log.Warn("resuming a turn another replica began", "session", st.id, "turn", id, "from", res.From)
	}
	// Not under s.base: a draining replica lets its turns finish, or
	// leaves them to another replica, rather than interrupt them.
	tctx, cancel := context.WithCancel(context.WithoutCancel(s.base))
	defer cancel()
	go s.watchCancel(tctx, id, cancel)
	go s.relayAnswers(tctx, st.id, l)
	s.runTurn(tctx, st, t)
	s.syncLog(st.hub) // a completed turn's events are all stored
	// What happened to the turn decides, not the drain's wish: its end
	// (an interrupted result, as the log sink stored it) says whether the
	// drain interrupted it. A turn that completed as the drain timed out
	// completes its workflow, and another replica never redoes it.
	handed, refused := false, false
	if ls := s.sinkOf(st.hub); ls != nil {
		handed, refused = ls.settle(), ls.wasRefused()
	}
	if refused {
		// The session's lease was lost to another runner, which took the
		// turn over (eventfence.go): the workflow is that replica's now,
		// and this one neither completes nor fails it.
		s.log.Warn("a turn's lease was lost to another runner: its late output was not stored, and the turn is left to that runner", "session", st.id, "turn", id)
		cancel()
		done()
		<-make(chan struct{})
	}
	st.mu.Lock()
	st.handedOver = handed
	st.mu.Unlock()
	if handed {
		// Interrupted by a drain with another replica alive: leave the
		// workflow pending (never return) for Shutdown to hand it over
		// (releaseTurns); the process is exiting.
		cancel()
		done()
		<-make(chan struct{})
	}
	if s.draining.Load() {
		// Completed during a drain: releaseTurns waits until DBOS has
		// recorded it, so a hand-over does not take it too.
		s.mu.Lock()
		s.ended = append(s.ended, id)
		s.mu.Unlock()
	}
	return nil
}

// watchCancel interrupts the turn when its workflow is cancelled (an
// interrupt sent to another replica).
func (s *Server) watchCancel(ctx context.Context, id string, cancel context.CancelFunc) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if c, err := s.opts.Turns.Cancelled(ctx, id); err == nil && c {
			cancel()
			return
		}
	}
}

// advancePastLog numbers this replica's events after every stored one: a
// replica killed mid-turn stored events after the session's saved seq.
func (s *Server) advancePastLog(ctx context.Context, st *sessState, l *session.Live) {
	if s.opts.EventLog == nil {
		return
	}
	seq, err := s.opts.EventLog.LastEventSeq(ctx, st.id)
	if err != nil {
		s.log.Warn("read the session's last stored event", "session", st.id, "err", err)
		return
	}
	l.Events().AdvanceTo(seq)
	// The hub too, before this turn's first event reaches it: it takes
	// any seq above its last, so stored events it has not caught up with
	// through WatchEvents yet would be skipped for good by this replica's
	// clients (TestDurableTurnDeliversStoredEventsFirst).
	s.catchUp(ctx, st)
}

// interruptDurable cancels the session's queued and running turns on
// every replica; wasRunning: one of them was running.
func (s *Server) interruptDurable(ctx context.Context, st *sessState) (wasRunning bool, dropped int) {
	ids, err := s.opts.Turns.Pending(ctx, st.id)
	if err != nil {
		s.log.Warn("list the session's turns to interrupt", "session", st.id, "err", err)
	}
	if err := s.opts.Turns.Cancel(ctx, ids); err != nil {
		s.log.Warn("cancel the session's turns", "session", st.id, "err", err)
	}
	local, _ := st.interrupt()
	if len(ids) > 0 {
		return true, len(ids) - 1
	}
	return local, 0
}

// sweepTurns re-enqueues the turns of replicas whose heartbeat is stale,
// for this or another replica to resume. Every replica sweeps: DBOS
// re-enqueues each turn once, whoever asks.
func (s *Server) sweepTurns() {
	if s.opts.Turns == nil {
		return
	}
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(s.base, 10*time.Second)
		s.sweepOnce(ctx)
		cancel()
	}
}

func (s *Server) sweepOnce(ctx context.Context) {
	// Workspaces registered since: take their turns too.
	if err := s.opts.Turns.Listen(s.turnQueues(ctx)); err != nil {
		s.log.Warn("listen to the workspaces' turn queues", "err", err)
	}
	s.sweepUserTurns(ctx)
	if s.opts.Replicas == nil {
		return
	}
	rs, err := s.opts.Replicas.ListReplicas(ctx, time.Now().Add(-s.deadAfter()))
	if err != nil {
		return
	}
	alive := map[string]bool{}
	for _, r := range rs {
		alive[r.ID] = true
	}
	if _, err := s.opts.Turns.Sweep(ctx, s.ownerAlive(ctx, alive)); err != nil && !errors.Is(err, context.Canceled) {
		s.log.Warn("sweep the turns of stopped replicas", "err", err)
	}
}

// deadAfter is how long a replica's heartbeat may be silent before its
// turns are taken over (Options.DeadAfter, default replicaDeadAfter).
func (s *Server) deadAfter() time.Duration {
	if s.opts.DeadAfter > 0 {
		return s.opts.DeadAfter
	}
	return replicaDeadAfter
}

// replicaDeadAfter: several missed heartbeats (every 2 s), so one slow
// write does not hand a live replica's turns over, and well inside the
// 30 s the issue allows for a turn to move.
const replicaDeadAfter = 8 * time.Second

// drainTurns stops taking turns and waits (DrainTimeout, within ctx) for
// the durable turns running here. If some still run and another replica
// is alive, they are handed over: Shutdown interrupts them and runJob
// leaves the workflows of those it interrupted pending (see runJob).
func (s *Server) drainTurns(ctx context.Context) {
	if s.opts.Turns == nil {
		return
	}
	s.opts.Turns.StopTaking()
	d := s.drainTimeout()
	deadline := time.Now().Add(d)
	if dl, ok := ctx.Deadline(); ok && dl.Add(-5*time.Second).Before(deadline) {
		deadline = dl.Add(-5 * time.Second)
	}
	for s.runningTurns() > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if n := s.runningTurns(); n > 0 && s.othersAlive(ctx) {
		s.handOver.Store(true)
		s.armRunning()
		s.log.Warn("handing running turns over to the other replicas", "turns", n, "drain_timeout", d)
	}
}

// armRunning arms the log sinks of the sessions running a turn here:
// such a turn that then ends interrupted (Shutdown interrupts it) is
// handed over, its end (its result, its error) shown as a handing_over
// status, since the turn goes on elsewhere. One that ends otherwise (it
// completed meanwhile) keeps its end and completes its workflow (runJob).
func (s *Server) armRunning() {
	s.mu.Lock()
	sts := make([]*sessState, 0, len(s.sessions))
	for _, st := range s.sessions {
		sts = append(sts, st)
	}
	s.mu.Unlock()
	for _, st := range sts {
		st.mu.Lock()
		running := st.running
		st.mu.Unlock()
		if !running {
			continue
		}
		if ls := s.sinkOf(st.hub); ls != nil {
			ls.arm(fmt.Sprintf("replica %s is stopping: this turn is interrupted here and goes on on another replica", s.replica.id))
		}
	}
}

// releaseTurns hands the turns interrupted by the drain over (Shutdown
// calls it once they stopped and their sessions closed): once their
// events are stored, so the replica that resumes one numbers on after
// them, they go back on their queues at once for another replica.
func (s *Server) releaseTurns(ctx context.Context) {
	if s.opts.Turns == nil || !s.handOver.Load() {
		return
	}
	s.mu.Lock()
	var handed []*sessState
	for _, st := range s.sessions {
		st.mu.Lock()
		if st.handedOver {
			handed = append(handed, st)
		}
		st.mu.Unlock()
	}
	s.mu.Unlock()
	ids := make([]string, 0, len(handed))
	for _, st := range handed {
		s.syncLog(st.hub)
		ids = append(ids, st.id)
	}
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if err := s.opts.Turns.AwaitEnded(ctx, ended); err != nil {
		s.log.Error("hand the turns over (the other replicas take them once this one's heartbeat is gone)", "err", err)
		return
	}
	n, err := s.opts.Turns.Release(ctx)
	if err != nil {
		s.log.Error("hand the turns over (the other replicas take them once this one's heartbeat is gone)", "err", err)
		return
	}
	s.log.Warn("handed turns over to the other replicas", "turns", n, "sessions", ids)
}

// DefaultDrainTimeout is Options.DrainTimeout's default (`tandem serve
// --drain-timeout`).
const DefaultDrainTimeout = 5 * time.Second

func (s *Server) drainTimeout() time.Duration {
	if s.opts.DrainTimeout > 0 {
		return s.opts.DrainTimeout
	}
	return DefaultDrainTimeout
}

// othersAlive reports whether another replica's heartbeat is fresh.
func (s *Server) othersAlive(ctx context.Context) bool {
	if s.opts.Replicas == nil {
		return false
	}
	rs, err := s.opts.Replicas.ListReplicas(ctx, time.Now().Add(-s.deadAfter()))
	if err != nil {
		return false
	}
	for _, r := range rs {
		if r.ID != s.replica.id {
			return true
		}
	}
	return false
}
