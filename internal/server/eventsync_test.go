package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/store"
)

// slowLog is an event log that stores slowly and, before storing each
// batch, checks what a crash at that moment would leave: the session's
// stored last_seq (what a replica resuming the turn numbers after) must
// not be past the events stored so far.
type slowLog struct {
	server.EventLog
	sessions store.Sessions

	mu    sync.Mutex
	ahead []string
}

func (l *slowLog) AppendEvents(ctx context.Context, id string, rows []store.StoredEvent) error {
	time.Sleep(50 * time.Millisecond) // a loaded database
	if s, err := l.sessions.GetSession(ctx, id); err == nil && s.LastSeq >= rows[0].Seq {
		l.mu.Lock()
		l.ahead = append(l.ahead, fmt.Sprintf("last_seq %d recorded while events %d to %d were not stored yet", s.LastSeq, rows[0].Seq, rows[len(rows)-1].Seq))
		l.mu.Unlock()
	}
	return l.EventLog.AppendEvents(ctx, id, rows)
}

// A turn records a step's messages, and the session's last_seq with
// them, only once the step's events are in the stored log: a replica
// SIGKILLed at any moment leaves no seq recorded as emitted but never
// stored (the resuming replica numbers after last_seq, so such seqs, a
// step's tool_use and tool_result, were lost for good: bench/serve
// -procs). Every seq of the turn is stored once and streamed once.
func TestMessagesRecordedOnlyAfterTheirEventsAreStored(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Glob", map[string]string{"pattern": "*.txt"})),
		scripted.ToolStep(scripted.Call("Glob", map[string]string{"pattern": "*.md"})),
		scripted.TextStep("done"),
	}})
	st := e.stack.Manager.Store()
	log := &slowLog{EventLog: st, sessions: st}
	o := e.opts
	o.Manager, o.Checkpoints, o.Extensions, o.EventLog, o.ReplicaID = e.stack.Manager, e.stack.Checkpoints, e.stack.App, log, "slow"
	srv, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
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
	on.send(id, "look around")
	got := collectUntilResult(t, ch)
	var tools int
	for i, ev := range got {
		if want := sess.LastSeq + 1 + int64(i); ev.Event.Seq != want {
			t.Fatalf("event %d (%s) streamed with seq %d, want %d", i, ev.Event.Type, ev.Event.Seq, want)
		}
		if ev.Event.Type == event.ToolUse {
			tools++
		}
	}
	if tools != 2 {
		t.Errorf("%d tool_use events streamed, want 2", tools)
	}
	rows, err := st.EventsAfter(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.Seq != int64(i)+1 {
			t.Fatalf("stored event %d has seq %d: a gap or a repeat", i, r.Seq)
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.ahead) > 0 {
		t.Fatalf("a crash would have lost events (%d times), first: %s", len(log.ahead), log.ahead[0])
	}
}
