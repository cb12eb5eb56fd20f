package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// quietLog is an event log whose wake-ups never come: a replica that has
// not yet heard (WatchEvents) of what another one stored.
type quietLog struct{ server.EventLog }

func (quietLog) WatchEvents(ctx context.Context, _ func(string, int64)) error {
	<-ctx.Done()
	return nil
}

// A replica starting a durable turn of a session another replica stored
// events of, before it heard of them: its clients get those events first,
// then the turn's, every seq once (bench/serve -procs lost such events
// when a turn moved: the hub took the turn's first seq and skipped the
// stored ones below it for good).
func TestDurableTurnDeliversStoredEventsFirst(t *testing.T) {
	e := newDurableEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("on the replica")}})
	st := e.stack.Manager.Store()
	turns, err := turnqueue.Open(context.Background(), turnqueue.Config{Replica: "replica-b",
		DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "turns.db"),
		Messages: func(ctx context.Context, id string) (int, error) {
			msgs, err := e.stack.Manager.Messages(ctx, id)
			return len(msgs), err
		}})
	if err != nil {
		t.Fatal(err)
	}
	o := e.opts
	o.Manager, o.Checkpoints, o.Extensions = e.stack.Manager, e.stack.Checkpoints, e.stack.App
	o.EventLog, o.Turns, o.ReplicaID = quietLog{st}, turns, "replica-b"
	b, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(b.Handler())
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.Shutdown(ctx)
		_ = turns.Close(2 * time.Second)
		ts.CloseClientConnections()
		ts.Close()
	}()
	on := &env{t: t, ts: ts, ws: e.ws}
	id := on.newSession()
	var sess struct {
		LastSeq int64 `json:"last_seq"`
	}
	on.mustDo("GET", "/api/sessions/"+id, nil, 200, &sess)
	ch, cancel := on.stream(id, fmt.Sprint(sess.LastSeq))
	defer cancel()
	// Another replica stored two events (the end of its turn) that this
	// one has not heard of.
	var rows []store.StoredEvent
	for i := int64(1); i <= 2; i++ {
		ev := event.Event{Type: event.Text, SessionID: id, Seq: sess.LastSeq + i, Time: time.Now().UTC(), Text: fmt.Sprintf("stored by A %d", i)}
		js, _ := json.Marshal(ev)
		rows = append(rows, store.StoredEvent{Seq: ev.Seq, Type: string(ev.Type), JSON: js})
	}
	if err := st.AppendEvents(context.Background(), id, rows); err != nil {
		t.Fatal(err)
	}
	on.send(id, "hi")
	got := collectUntilResult(t, ch)
	for i, ev := range got {
		if want := sess.LastSeq + 1 + int64(i); ev.Event.Seq != want {
			t.Fatalf("event %d (%s) has seq %d, want %d: the stored events below the turn's were skipped", i, ev.Event.Type, ev.Event.Seq, want)
		}
	}
	if got[0].Event.Text != "stored by A 1" {
		t.Fatalf("first event: %+v, want the first stored by A", got[0].Event)
	}
}
