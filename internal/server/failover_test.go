package server_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// stallableBeats is a replica registry whose heartbeats can be held up:
// a replica on a saturated machine or database, alive but late.
type stallableBeats struct {
	server.ReplicaRegistry
	stalled atomic.Bool
}

func (r *stallableBeats) Heartbeat(ctx context.Context, rp store.Replica) error {
	if r.stalled.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return r.ReplicaRegistry.Heartbeat(ctx, rp)
}

// failoverDeadAfter is the replicas' DeadAfter in these tests (short, so
// the tests wait little; the heartbeat interval is 2 s).
const failoverDeadAfter = 3 * time.Second

// pgReplica is one `tandem serve` replica over the PostgreSQL at dbURL,
// wired as `tandem serve` wires replicas: stored event log, heartbeats
// (through beats) and durable turns on the same database.
type pgReplica struct {
	*env
	beats *stallableBeats
	turns *turnqueue.Engine
}

func newPGReplica(t *testing.T, dbURL, name string, script scripted.Script, ws string, opts ...func(*server.Options)) *pgReplica {
	t.Helper()
	dir := t.TempDir()
	stack, err := servertest.New(dir, servertest.Config{Script: script, Database: dbURL, AskTools: []string{"Write"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stack.Close() })
	id := name + "-" + server.NewReplicaID()
	turns, err := turnqueue.Open(context.Background(), turnqueue.Config{Replica: id, DatabaseURL: dbURL,
		Messages: func(ctx context.Context, sid string) (int, error) {
			msgs, err := stack.Manager.Messages(ctx, sid)
			return len(msgs), err
		}})
	if err != nil {
		t.Fatal(err)
	}
	beats := &stallableBeats{ReplicaRegistry: stack.App.Store}
	o := server.Options{Token: testToken, DataDir: dir, KeepAlive: time.Hour, DefaultModel: servertest.Model,
		Manager: stack.Manager, Checkpoints: stack.Checkpoints, Extensions: stack.App, FlagRules: stack.FlagRules,
		EventLog: stack.Manager.Store(), Replicas: beats, Turns: turns, ReplicaID: id, DeadAfter: failoverDeadAfter}
	for _, f := range opts {
		f(&o)
	}
	srv, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.ConnContext = server.ConnContext
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		_ = turns.Close(2 * time.Second)
		ts.CloseClientConnections()
		ts.Close()
	})
	e := &env{t: t, srv: srv, ts: ts, stack: stack, dir: dir, ws: ws}
	if ws == "" {
		ws = filepath.Join(dir, "project")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if real, err := filepath.EvalSymlinks(ws); err == nil {
			ws = real
		}
		e.ws = ws
		e.mustDo("POST", "/api/workspaces", map[string]string{"path": ws}, 201, nil)
	}
	return &pgReplica{env: e, beats: beats, turns: turns}
}

// privatePG is a private PostgreSQL server for one test (no TestMain).
func privatePG(t *testing.T) string {
	t.Helper()
	url, stop, err := pgtest.Private(pgtest.Options{})
	var nb *pgtest.NoBinariesError
	if errors.As(err, &nb) && !pgtest.Required() {
		t.Skip(err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	return url
}

// runnerOf is the replica (of a and b) that began the session's turn
// (every replica shows the session running, so ask the turn queue).
func runnerOf(t *testing.T, id string, a, b *pgReplica) (runner, other *pgReplica) {
	t.Helper()
	ctx := context.Background()
	ids, err := a.turns.Pending(ctx, id)
	if err != nil || len(ids) != 1 {
		t.Fatalf("the session's pending turns: %v, %v; want one", ids, err)
	}
	st, ok, err := a.turns.Begun(ctx, ids[0])
	if err != nil || !ok {
		t.Fatalf("who began turn %s: %v, %v", ids[0], ok, err)
	}
	switch st.Replica {
	case a.srv.ReplicaID():
		return a, b
	case b.srv.ReplicaID():
		return b, a
	}
	t.Fatalf("turn %s began on %q, neither replica", ids[0], st.Replica)
	return nil, nil
}

// staleOn waits until r's view of the replicas no longer lists dead as
// alive (its heartbeat older than DeadAfter), then for two more sweeps.
func staleOn(t *testing.T, r *pgReplica, dead string) {
	t.Helper()
	reg := r.stack.App.Store
	for deadline := time.Now().Add(60 * time.Second); ; {
		rs, err := reg.ListReplicas(context.Background(), time.Now().Add(-failoverDeadAfter))
		if err != nil {
			t.Fatal(err)
		}
		alive := false
		for _, x := range rs {
			alive = alive || x.ID == dead
		}
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s still listed alive a minute after its heartbeats stopped", dead)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * 2 * time.Second) // two sweeps (one every heartbeat interval)
}

// drain takes what the stream has delivered so far.
func drain(ch <-chan sseEvent) []event.Event {
	var out []event.Event
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev.Event)
		default:
			return out
		}
	}
}

// untilResultAllowing collects events until a result, allowing every
// permission asked on the way (on whichever replica: the answer is
// stored).
func untilResultAllowing(t *testing.T, ch <-chan sseEvent, on *pgReplica, id string) []event.Event {
	t.Helper()
	var out []event.Event
	for {
		evs := until(t, ch, func(e event.Event) bool { return e.Type == event.Result || e.Type == event.PermissionRequest })
		for _, ev := range evs {
			out = append(out, ev.Event)
		}
		last := evs[len(evs)-1].Event
		if last.Type == event.Result {
			return out
		}
		on.mustDo("POST", "/api/sessions/"+id+"/permissions/"+last.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	}
}

// Two replicas on one PostgreSQL. The one running a turn (held by a
// permission question) has its heartbeats held up well past DeadAfter,
// while it still runs the turn and renews the session's lease: the other
// does not take the turn over (no turn_moved, no error event, one
// result, from the replica that ran it). bench/serve -procs saw such
// live replicas' turns moved, run twice and failed "busy". Then the
// runner is dead (its heartbeats stopped and its lease's process gone):
// its next turn is handed over and completed by the other.
func TestReplicaLateHeartbeatKeepsItsTurn(t *testing.T) {
	dbURL := privatePG(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "y\n"})),
		scripted.TextStep("Wrote it again."),
	}}
	a := newPGReplica(t, dbURL, "a", script, "")
	b := newPGReplica(t, dbURL, "b", script, a.ws)
	id := a.newSession()
	ch, stop := b.stream(id, "")
	defer stop()

	// 1. Alive but late.
	a.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	req := evs[len(evs)-1].Event
	runner, other := runnerOf(t, id, a, b)
	runner.beats.stalled.Store(true)
	staleOn(t, other, runner.srv.ReplicaID())
	var seen []event.Event
	for _, ev := range evs {
		seen = append(seen, ev.Event)
	}
	seen = append(seen, drain(ch)...)
	runner.mustDo("POST", "/api/sessions/"+id+"/permissions/"+req.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	seen = append(seen, untilResultAllowing(t, ch, runner, id)...)
	for _, e := range seen {
		switch {
		case e.Type == event.Status && e.Subtype == server.SubtypeTurnMoved:
			t.Errorf("the turn of a live replica whose heartbeats were late was moved: %s", e.Message)
		case e.Type == event.Error:
			t.Errorf("error event: %s", e.Error)
		case e.Type == event.Result && (e.IsError || e.Result != "Wrote it."):
			t.Errorf("result: %+v", e)
		}
	}
	if t.Failed() {
		return
	}

	// 2. Dead: no heartbeat, and the process holding the session's lease
	// is gone (as after a SIGKILL on this host).
	runner.beats.stalled.Store(false)
	runner.send(id, "write it again")
	until(t, ch, isType(event.PermissionRequest))
	runner, other = runnerOf(t, id, a, b)
	runner.beats.stalled.Store(true)
	// A dead replica dequeues nothing, its own recovered turn included
	// (in this process it would: DBOS always serves its internal queue).
	_ = runner.turns.Close(time.Second)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `UPDATE session_leases SET pid = $1 WHERE session_id = $2`, gone.Process.Pid, id); err != nil {
		t.Fatal(err)
	}
	moved := false
	for _, e := range untilResultAllowing(t, ch, other, id) {
		moved = moved || e.Type == event.Status && e.Subtype == server.SubtypeTurnMoved
	}
	if !moved {
		t.Errorf("the dead replica's turn was not handed over")
	}
}
