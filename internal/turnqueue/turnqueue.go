// Package turnqueue runs `tandem serve` turns as durable workflows on DBOS
// Transact (docs/decisions/replicas-engine.md): a prompt posted to any
// replica is enqueued on the queue of the session's workspace, partitioned
// by session with one turn per partition at a time across every replica,
// first in first out; a replica that can reach the workspace dequeues it
// and runs it; a replica that died is noticed by the others (Sweep) and
// its pending turns are re-enqueued by DBOS for another replica to resume.
//
// The step model is deliberately small: a turn is one workflow whose only
// DBOS step is its start (who began it, and how many messages the session
// had then). The turn's stored messages are its checkpoint: a resumed turn
// continues from them, redoing the model step in flight, as after kill -9.
//
// The same code runs on PostgreSQL (several replicas) and on a SQLite file
// (the embedded default, one process).
package turnqueue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite" // the embedded default's system database
	"github.com/dbos-inc/dbos-transact-golang/dbos/internals"
	"github.com/oklog/ulid/v2"
)

// appVersion is set explicitly: DBOS derives one from the binary
// otherwise, and a replica on another build would not recover the
// others' turns. Bump it only when Job or the workflow's steps change
// incompatibly.
const appVersion = "tandem-turns-1"

// workflowName is the registered name of the turn workflow.
const workflowName = "tandem.turn"

// Job is one queued prompt: everything a replica needs to run the turn.
type Job struct {
	Session string          `json:"session"`
	Prompt  string          `json:"prompt"`
	Options json.RawMessage `json:"options,omitempty"` // the server's turn options, encoded by it
	User    string          `json:"user,omitempty"`    // who sent it ("" the server token)
	Queue   string          `json:"queue"`             // the workspace queue it was put on
}

// Resume says that a turn is being resumed: another process began it and
// stopped (killed, or drained before the turn ended).
type Resume struct {
	From     string // the replica that began the turn
	Messages int    // the session's stored messages when the turn began
}

// Start is what a turn records when it begins (its one DBOS step).
type Start struct {
	Replica     string `json:"replica"`
	Incarnation string `json:"incarnation"` // this process, as opposed to a restart with the same id
	Messages    int    `json:"messages"`
	// Seq is the session's last stored event when the turn began (nil:
	// not known): with Messages, the point a replica that does not run the
	// turn shows the session at (the stored messages up to Messages, the
	// events after Seq), so its clients miss and repeat nothing.
	Seq *int64 `json:"seq,omitempty"`
}

// Runner runs a job's turn (workflow id) on this replica. resume is nil
// on a first run. An error fails the workflow (the turn is not retried);
// returning nil completes it.
type Runner func(ctx context.Context, id string, job Job, resume *Resume) error

// Config configures an Engine.
type Config struct {
	// Replica is this process's replica id, used as DBOS's executor id.
	Replica string
	// DatabaseURL is the system database: the store's postgres:// URL
	// (DBOS keeps its tables in schema "dbos"), or sqlite:PATH for the
	// embedded default (a file of its own beside tandem.db).
	DatabaseURL string
	// Schema is the PostgreSQL schema of DBOS's tables (default "dbos";
	// tests give each database schema one of its own).
	Schema string
	Logger *slog.Logger
	// Poll is how often an idle queue is polled (default 250 ms).
	Poll time.Duration
	// Messages returns the session's stored message count, recorded when
	// a turn begins so a resumed turn knows whether its prompt is stored.
	Messages func(ctx context.Context, session string) (int, error)
}

// Engine is the DBOS context with the turn workflow registered.
type Engine struct {
	dc          dbos.Context
	rt          internals.Runtime
	cfg         Config
	incarnation string
	log         *slog.Logger

	mu      sync.Mutex
	run     Runner
	seq     func(ctx context.Context, session string) (int64, error)
	queues  map[string]dbos.Queue
	started bool
	stopped time.Time // StopTaking was called
}

// Open connects to the system database (creating its tables) and
// registers the turn workflow; Start launches it.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Replica == "" || cfg.DatabaseURL == "" || cfg.Messages == nil {
		return nil, errors.New("turnqueue: Replica, DatabaseURL and Messages are required")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	e := &Engine{cfg: cfg, incarnation: hex.EncodeToString(b[:]), log: cfg.Logger, queues: map[string]dbos.Queue{}}
	dc, err := dbos.NewContext(ctx, dbos.Config{AppName: "tandem", ExecutorID: cfg.Replica, ApplicationVersion: appVersion,
		DatabaseURL: cfg.DatabaseURL, DatabaseSchema: cfg.Schema, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("open the turn queue's system database (DBOS): %w (check --database and that the database accepts connections)", err)
	}
	rt, err := internals.RuntimeOf(dc)
	if err != nil {
		return nil, fmt.Errorf("turn queue: %w", err)
	}
	e.dc, e.rt = dc, rt
	dbos.RegisterWorkflow(dc, e.turn, dbos.WithWorkflowName(workflowName))
	return e, nil
}

// StartOption tunes Start.
type StartOption func(*Engine)

// WithSeq gives the runner's count of the session's stored events, which
// a turn records when it begins (Start.Seq).
func WithSeq(f func(ctx context.Context, session string) (int64, error)) StartOption {
	return func(e *Engine) { e.seq = f }
}

// Start launches the engine with run as the turn runner and listens to
// queues (see Listen). DBOS recovers this executor's own pending turns.
func (e *Engine) Start(run Runner, queues []string, opts ...StartOption) error {
	e.mu.Lock()
	for _, o := range opts {
		o(e)
	}
	e.run = run
	e.started = true
	e.mu.Unlock()
	if err := e.Listen(queues); err != nil {
		return err
	}
	if err := dbos.Launch(e.dc); err != nil {
		return fmt.Errorf("launch the turn queue (DBOS): %w", err)
	}
	return nil
}

// Replica is the executor id turns run under here.
func (e *Engine) Replica() string { return e.cfg.Replica }

// turn is the workflow: record the start once, then run (or resume) the
// turn through the runner.
func (e *Engine) turn(ctx dbos.Context, job Job) (string, error) {
	st, err := dbos.RunAsStep(ctx, func(c context.Context) (Start, error) {
		n, err := e.cfg.Messages(c, job.Session)
		if err != nil {
			return Start{}, err
		}
		st := Start{Replica: e.cfg.Replica, Incarnation: e.incarnation, Messages: n}
		e.mu.Lock()
		seq := e.seq
		e.mu.Unlock()
		if seq != nil {
			n, err := seq(c, job.Session)
			if err != nil {
				return Start{}, err
			}
			st.Seq = &n
		}
		return st, nil
	}, dbos.WithStepName("begin"))
	if err != nil {
		return "", fmt.Errorf("begin turn of session %s: %w", job.Session, err)
	}
	var res *Resume
	if st.Incarnation != e.incarnation {
		res = &Resume{From: st.Replica, Messages: st.Messages}
	}
	id, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return "", fmt.Errorf("turn of session %s: %w", job.Session, err)
	}
	e.mu.Lock()
	run := e.run
	e.mu.Unlock()
	if err := run(ctx, id, job, res); err != nil {
		return "", err
	}
	return "done", nil
}

// Enqueue puts job on its queue (registering the queue on first use) and
// returns the workflow id. Turns of one session run one at a time, in
// the order they were enqueued, whichever replica takes them.
func (e *Engine) Enqueue(ctx context.Context, job Job) (string, error) {
	return e.EnqueueAs(ctx, NewID(job.Session), job)
}

// EnqueueAs is Enqueue under a workflow id from NewID (the caller
// recorded it first).
func (e *Engine) EnqueueAs(ctx context.Context, id string, job Job) (string, error) {
	q, err := e.queue(job.Queue)
	if err != nil {
		return "", err
	}
	_, err = dbos.RunWorkflow(e.dc, e.turn, job, dbos.WithQueue(q), dbos.WithQueuePartitionKey(job.Session), dbos.WithWorkflowID(id))
	if err != nil {
		return "", fmt.Errorf("enqueue the turn of session %s: %w", job.Session, err)
	}
	return id, nil
}

// NewID names a new turn of the session (its workflow id).
func NewID(session string) string {
	return WorkflowPrefix(session) + strings.ToLower(ulid.Make().String())
}

// WorkflowPrefix starts the id of every turn workflow of a session.
func WorkflowPrefix(session string) string { return "turn-" + session + "-" }

func (e *Engine) queue(name string) (dbos.Queue, error) {
	e.mu.Lock()
	q, ok := e.queues[name]
	e.mu.Unlock()
	if ok {
		return q, nil
	}
	q, err := dbos.RegisterQueue(e.dc, name, dbos.WithPartitionConcurrency(1), dbos.WithQueueBasePollingInterval(e.cfg.Poll))
	if err != nil {
		return nil, fmt.Errorf("register turn queue %s: %w", name, err)
	}
	e.mu.Lock()
	e.queues[name] = q
	e.mu.Unlock()
	return q, nil
}

// Listen makes this replica take turns only from queues (the queues of
// the workspaces it reaches, and the default queue), registering them.
func (e *Engine) Listen(queues []string) error {
	for _, name := range queues {
		if _, err := e.queue(name); err != nil {
			return err
		}
	}
	dbos.ListenQueues(e.dc, queues...)
	return nil
}

// StopTaking stops this replica from dequeuing turns (a draining replica
// finishes what it runs; the others take the rest).
func (e *Engine) StopTaking() {
	dbos.ListenQueues(e.dc, "tandem-draining")
	e.mu.Lock()
	if e.stopped.IsZero() {
		e.stopped = time.Now()
	}
	e.mu.Unlock()
}

// listenSettle is how long DBOS may go on dequeuing from a queue no
// longer listened to: its queue runner applies the listen set once a
// second (a fixed interval in DBOS), and a worker already polling
// finishes that poll.
const listenSettle = 1500 * time.Millisecond

// Release puts the turns this replica began and did not finish back on
// their queues, at once, for the other replicas to resume: a draining
// replica that interrupted them hands them over without waiting for the
// others to find its heartbeat gone. Call it after StopTaking, once they
// stopped here.
func (e *Engine) Release(ctx context.Context) (int, error) {
	// Until StopTaking has settled this replica could dequeue the turns
	// it hands over itself, and run them again from their start.
	e.mu.Lock()
	settled := e.stopped.Add(listenSettle)
	e.mu.Unlock()
	if wait := time.Until(settled); wait > 0 {
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("hand this replica's turns over: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
	hs, err := e.rt.RecoverPendingWorkflows([]string{e.cfg.Replica})
	if err != nil {
		return 0, fmt.Errorf("hand this replica's turns over: %w", err)
	}
	return len(hs), nil
}

// AwaitEnded waits until none of the turns ids is running any more as
// DBOS records it: their runner returned and their outcome is stored.
// A draining replica waits so for the turns it completed before it
// hands the rest over (Release), which would otherwise take a completed
// turn whose outcome is not stored yet for one to resume.
func (e *Engine) AwaitEnded(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		ws, err := dbos.ListWorkflows(e.dc, dbos.WithFilterWorkflowIDs(ids...), dbos.WithFilterStatus(dbos.WorkflowStatusPending),
			dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
		if err != nil {
			return fmt.Errorf("read the state of turns %v: %w", ids, err)
		}
		if len(ws) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for turns %v to be recorded as ended: %w", ids, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Pending returns the ids of the session's turns not finished yet
// (queued or running), oldest first.
func (e *Engine) Pending(ctx context.Context, session string) ([]string, error) {
	ws, err := dbos.ListWorkflows(e.dc, dbos.WithFilterWorkflowIDPrefix(WorkflowPrefix(session)),
		dbos.WithFilterStatus(dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued),
		dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("list the turns of session %s: %w", session, err)
	}
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.ID)
	}
	return out, nil
}

// Cancel cancels turns by workflow id: a queued one never runs; a running
// one's replica notices (Cancelled) and interrupts it.
func (e *Engine) Cancel(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return dbos.CancelWorkflows(e.dc, ids)
}

// Cancelled reports whether the workflow id was cancelled.
func (e *Engine) Cancelled(ctx context.Context, id string) (bool, error) {
	ws, err := dbos.ListWorkflows(e.dc, dbos.WithFilterWorkflowIDs(id), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil || len(ws) == 0 {
		return false, err
	}
	return ws[0].Status == dbos.WorkflowStatusCancelled, nil
}

// Sweep re-enqueues the pending turns of executors that are not alive
// (alive reports whether a replica is, given the sessions of its pending
// turns: its heartbeat is fresh, or it still holds one of their leases):
// the replica that ran them was killed or stopped without finishing them.
// DBOS's own recovery covers only a process that restarts with the same
// executor id; declaring an executor dead is left to the application
// (docs/decisions/replicas-engine.md).
func (e *Engine) Sweep(ctx context.Context, alive func(replica string, sessions []string) bool) (int, error) {
	ws, err := dbos.ListWorkflows(e.dc, dbos.WithFilterStatus(dbos.WorkflowStatusPending),
		dbos.WithFilterName(workflowName), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return 0, fmt.Errorf("list pending turns: %w", err)
	}
	var ids []string
	for ex, sessions := range sessionsByExecutor(ws, e.cfg.Replica) {
		if !alive(ex, sessions) {
			ids = append(ids, ex)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	hs, err := e.rt.RecoverPendingWorkflows(ids)
	if err != nil {
		return 0, fmt.Errorf("recover the turns of replicas %v: %w", ids, err)
	}
	if len(hs) > 0 {
		e.log.Warn("re-enqueued the turns of stopped replicas", "replicas", ids, "turns", len(hs))
	}
	return len(hs), nil
}

// Close shuts DBOS down (after the server drained its turns).
func (e *Engine) Close(timeout time.Duration) error {
	return dbos.Shutdown(e.dc, timeout)
}
