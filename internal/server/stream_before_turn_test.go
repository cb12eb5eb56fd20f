package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/store/postgres"
)

// streamBeforeTurnScript is four one-reply turns.
var streamBeforeTurnScript = scripted.Script{Steps: []scripted.Step{
	scripted.TextStep("one"), scripted.TextStep("two"), scripted.TextStep("three"), scripted.TextStep("four"),
}}

// lastSeqOf is the session's last_seq as GET /api/sessions/{id} says.
func lastSeqOf(e *env, id string) int64 {
	e.t.Helper()
	var sess sessionResp
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &sess)
	return sess.LastSeq
}

// checkTurnStream reads ch until the turn's done and checks that it
// carried exactly the stored events after from (the turn's user_message
// first, its result, then its done), once each, in order.
func checkTurnStream(t *testing.T, ch <-chan sseEvent, from int64, stored func() []event.Event) {
	t.Helper()
	got := until(t, ch, isType(event.Done))
	var seqs []int64
	for _, ev := range got {
		if ev.Event.Type == event.KeepAlive || ev.ID == "" {
			continue
		}
		seqs = append(seqs, ev.Event.Seq)
	}
	var want []int64
	var types []string
	for _, e := range stored() {
		if e.Seq > from && (len(want) == 0 || want[len(want)-1] < e.Seq) {
			want = append(want, e.Seq)
			types = append(types, string(e.Type)+"/"+e.Subtype)
			if e.Type == event.Done {
				break
			}
		}
	}
	if fmt.Sprint(seqs) != fmt.Sprint(want) {
		t.Fatalf("the stream carried seqs %v, want the stored %v (%v)", seqs, want, types)
	}
	if len(types) == 0 || types[0] != string(event.Status)+"/"+event.SubtypeUserMessage {
		t.Fatalf("the turn's stored events start %v, want its user_message", types)
	}
}

// A stream opened on a replica before a durable turn starts gets all of
// the turn's events, once each, in order, whichever replica runs it (the
// turn queue picks; several turns make both likely).
func TestReplicaStreamOpenedBeforeTurn(t *testing.T) {
	dbURL := privatePG(t)
	a := newPGReplica(t, dbURL, "a", streamBeforeTurnScript, "")
	newPGReplica(t, dbURL, "b", streamBeforeTurnScript, a.ws)
	id := a.newSession()
	for range streamBeforeTurnScript.Steps {
		from := int64(0)
		if evs := storedEvents(t, a, id); len(evs) > 0 {
			from = evs[len(evs)-1].Seq
		}
		ch, stop := a.stream(id, "")
		a.send(id, "go")
		checkTurnStream(t, ch, from, func() []event.Event { return storedEvents(t, a, id) })
		stop()
	}
}

// On SQLite alone with durable turns (a web page streams, then prompts,
// on every turn), the stream gets the turn's events too: with the stored
// log, exactly the stored ones; without it (`tandem serve` on SQLite),
// the turn's events from its user_message to its done, in order.
func TestDurableStreamOpenedBeforeTurn(t *testing.T) {
	t.Run("with the stored log", func(t *testing.T) {
		e := newDurableEnv(t, streamBeforeTurnScript, withEventLog)
		id := e.newSession()
		from := lastSeqOf(e, id)
		ch, stop := e.stream(id, "")
		defer stop()
		e.send(id, "go")
		checkTurnStream(t, ch, from, func() []event.Event {
			rows, err := e.stack.Manager.Store().EventsAfter(t.Context(), id, 0, 10000)
			if err != nil {
				t.Fatal(err)
			}
			var out []event.Event
			for _, r := range rows {
				var ev event.Event
				if err := json.Unmarshal(r.JSON, &ev); err != nil {
					t.Fatal(err)
				}
				out = append(out, ev)
			}
			return out
		})
	})
	t.Run("in memory", func(t *testing.T) {
		e := newDurableEnv(t, streamBeforeTurnScript)
		id := e.newSession()
		from := lastSeqOf(e, id)
		ch, stop := e.stream(id, "")
		defer stop()
		e.send(id, "go")
		got := until(t, ch, isType(event.Done))
		if got[0].Event.Subtype != event.SubtypeUserMessage {
			t.Fatalf("the stream began with %s/%s, want the turn's user_message", got[0].Event.Type, got[0].Event.Subtype)
		}
		contiguous(t, got, from+1)
	})
}

// Streams opened on both replicas before a turn that asks a permission
// (as the drain tests do) each get the turn's events up to the question.
func TestReplicaStreamsOpenedBeforeAskingTurn(t *testing.T) {
	dbURL := privatePG(t)
	a, b, id, streams := askingPair(t, dbURL)
	a.send(id, "write the file")
	req := storedUntil(t, a, id, 0, isType(event.PermissionRequest))
	runner, _ := runnerOf(t, id, a, b)
	for _, r := range []*pgReplica{a, b} {
		name := "a"
		if r == b {
			name = "b"
		}
		if r == runner {
			name += " (the runner)"
		}
		got := until(t, streams[r], isType(event.PermissionRequest))
		var seqs []int64
		for _, ev := range got {
			seqs = append(seqs, ev.Event.Seq)
		}
		var want []int64
		for _, e := range storedEvents(t, a, id) {
			if e.Seq <= req.Seq {
				want = append(want, e.Seq)
			}
		}
		if fmt.Sprint(seqs) != fmt.Sprint(want) {
			t.Errorf("replica %s's stream carried %v, want the stored %v", name, seqs, want)
		}
	}
}

// lateWatchLog is an event log whose WatchEvents begins only once ready
// is closed: a replica whose LISTEN connection comes up late (a loaded
// machine or database) while the other replica already stores a turn.
type lateWatchLog struct {
	*postgres.Store
	ready chan struct{}
}

func (l lateWatchLog) WatchEvents(ctx context.Context, fn func(string, int64)) error {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil
	}
	return l.Store.WatchEvents(ctx, fn)
}

// A replica whose watch on the log began after another replica stored a
// turn (here the whole turn, before the watch) still streams that turn
// to a client that opened its stream before it: what was stored before
// the watch began is read once the watch is up, not left until the
// session's next event.
func TestReplicaStreamsATurnStoredBeforeItsWatchBegan(t *testing.T) {
	dbURL := privatePG(t)
	a := newPGReplica(t, dbURL, "a", streamBeforeTurnScript, "")
	ready := make(chan struct{})
	b := newPGReplica(t, dbURL, "b", streamBeforeTurnScript, a.ws, func(o *server.Options) {
		o.EventLog = lateWatchLog{Store: o.EventLog.(*postgres.Store), ready: ready}
		o.Turns = nil // a follower: every turn runs on a
	})
	id := a.newSession()
	from := lastSeqOf(a.env, id)
	ch, stop := b.stream(id, "")
	defer stop()
	a.send(id, "go")
	storedUntil(t, a, id, from, isType(event.Done))
	close(ready)
	checkTurnStream(t, ch, from, func() []event.Event { return storedEvents(t, a, id) })
}

// askingPair is two replicas on the PostgreSQL at dbURL whose scripted model
// writes out.txt (Write asks) and then says "Wrote it.", a session made on
// a, and a stream of it opened on each replica before any turn.
func askingPair(t *testing.T, dbURL string) (a, b *pgReplica, id string, streams map[*pgReplica]<-chan sseEvent) {
	t.Helper()
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	a = newPGReplica(t, dbURL, "a", script, "")
	b = newPGReplica(t, dbURL, "b", script, a.ws)
	id = a.newSession()
	streams = map[*pgReplica]<-chan sseEvent{}
	for _, r := range []*pgReplica{a, b} {
		ch, stop := r.stream(id, "")
		t.Cleanup(stop)
		streams[r] = ch
	}
	return a, b, id, streams
}
