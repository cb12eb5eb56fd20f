package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
)

// drainPair is two replicas on a private PostgreSQL, with a drain
// timeout that ends at once, and a session whose turn (held by a
// permission question, req) runs on runner; streams are each replica's
// event stream of it, opened before the turn.
func drainPair(t *testing.T) (runner, other *pgReplica, id string, req event.Event, streams map[*pgReplica]<-chan sseEvent) {
	t.Helper()
	dbURL := privatePG(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	quick := func(o *server.Options) { o.DrainTimeout = time.Millisecond }
	a := newPGReplica(t, dbURL, "a", script, "", quick)
	b := newPGReplica(t, dbURL, "b", script, a.ws, quick)
	id = a.newSession()
	streams = map[*pgReplica]<-chan sseEvent{}
	for _, r := range []*pgReplica{a, b} {
		ch, stop := r.stream(id, "")
		t.Cleanup(stop)
		streams[r] = ch
	}
	a.send(id, "write the file")
	req = storedUntil(t, a, id, 0, isType(event.PermissionRequest))
	runner, other = runnerOf(t, id, a, b)
	return runner, other, id, req, streams
}

// storedUntil waits until the session's stored log has an event after
// seq after that stop accepts, and returns it. (The stored log, not a
// stream: a stream opened on the replica before its turn began sometimes
// gets none of the turn's events, on the old code too.)
func storedUntil(t *testing.T, r *pgReplica, id string, after int64, stop func(event.Event) bool) event.Event {
	t.Helper()
	var got event.Event
	waitUntil(t, "the awaited event in the stored log", func() bool {
		for _, e := range storedEvents(t, r, id) {
			if e.Seq > after && stop(e) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// storedResultAllowing waits for the session's next stored result after
// seq after, allowing every permission asked on the way through r.
func storedResultAllowing(t *testing.T, r *pgReplica, id string, after int64) event.Event {
	t.Helper()
	for {
		e := storedUntil(t, r, id, after, func(e event.Event) bool { return e.Type == event.Result || e.Type == event.PermissionRequest })
		if e.Type == event.Result {
			return e
		}
		r.mustDo("POST", "/api/sessions/"+id+"/permissions/"+e.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
		after = e.Seq
	}
}

// storedEvents is the session's stored event log.
func storedEvents(t *testing.T, r *pgReplica, id string) []event.Event {
	t.Helper()
	rows, err := r.stack.Manager.Store().EventsAfter(context.Background(), id, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]event.Event, 0, len(rows))
	for _, row := range rows {
		var e event.Event
		if err := json.Unmarshal(row.JSON, &e); err != nil {
			t.Fatalf("stored event %d: %v", row.Seq, err)
		}
		out = append(out, e)
	}
	return out
}

// turnEnds counts what the log says of the turn's end.
type turnEnds struct {
	results, successes, handingOver, moved int
}

func endsOf(evs []event.Event) turnEnds {
	var n turnEnds
	for _, e := range evs {
		switch {
		case e.Type == event.Result:
			n.results++
			if !e.IsError && e.Result == "Wrote it." {
				n.successes++
			}
		case e.Type == event.Status && e.Subtype == server.SubtypeHandingOver:
			n.handingOver++
		case e.Type == event.Status && e.Subtype == server.SubtypeTurnMoved:
			n.moved++
		}
	}
	return n
}

// The drain of the replica running a turn times out while the turn runs,
// so it decides to hand the turn over; but the turn completes before
// Shutdown interrupts it (its question answered just then). The turn
// completes its workflow where it ran: its result is stored as it was,
// not as a handing_over status, and no replica takes it over (no
// turn_moved, no second result): a redone turn repeats its side effects.
func TestDrainKeepsATurnThatCompletes(t *testing.T) {
	runner, other, id, req, _ := drainPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runner.srv.DrainTurns(ctx)
	runner.mustDo("POST", "/api/sessions/"+id+"/permissions/"+req.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	waitUntil(t, "the turn to end on the draining replica", func() bool {
		for _, e := range storedEvents(t, other, id) {
			if e.Seq > req.Seq && (e.Type == event.Done || e.Subtype == server.SubtypeHandingOver) {
				return true
			}
		}
		return false
	})
	if err := runner.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shut the draining replica down: %v", err)
	}
	waitUntil(t, "the turn's workflow to finish", func() bool {
		ids, err := other.turns.Pending(ctx, id)
		return err == nil && len(ids) == 0
	})
	evs := storedEvents(t, other, id)
	if n := endsOf(evs); n.results != 1 || n.successes != 1 || n.handingOver != 0 || n.moved != 0 {
		t.Fatalf("a turn that completed as the drain timed out: %d results (%d successes), %d handing_over, %d turn_moved; want one success and nothing else; events %+v",
			n.results, n.successes, n.handingOver, n.moved, evs)
	}
}

// The drain of the replica running a turn times out and Shutdown
// interrupts the turn: it is handed over. Its end on the draining
// replica is a handing_over status (no result), and the other replica
// resumes it (turn_moved) and completes it: one result, a success.
func TestDrainHandsOverAnInterruptedTurn(t *testing.T) {
	runner, other, id, req, _ := drainPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runner.srv.DrainTurns(ctx)
	if err := runner.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shut the draining replica down: %v", err)
	}
	storedResultAllowing(t, other, id, req.Seq)
	waitUntil(t, "the turn's workflow to finish", func() bool {
		ids, err := other.turns.Pending(ctx, id)
		return err == nil && len(ids) == 0
	})
	evs := storedEvents(t, other, id)
	if n := endsOf(evs); n.results != 1 || n.successes != 1 || n.handingOver == 0 || n.moved != 1 {
		t.Fatalf("a turn the drain interrupted: %d results (%d successes), %d handing_over, %d turn_moved; want one success, handing_over and one turn_moved; events %+v",
			n.results, n.successes, n.handingOver, n.moved, evs)
	}
}
