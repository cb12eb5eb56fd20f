package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// stackLog marks Options.EventLog as "the test stack's own store" (set in
// env.start, once the stack exists).
type stackLog struct{ server.EventLog }

func withEventLog(o *server.Options, _ *servertest.Config) { o.EventLog = stackLog{} }

// A second server over the same store (as a replica over the same
// database) streams a turn the first one runs, from the stored log: every
// event once, in order; and a client resuming on it below its ring gets
// the earlier events from the log.
func TestSecondServerStreamsTheLog(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{scripted.ThinkingStep("hmm", "from the first server")}}, withEventLog)
	o := e.opts
	o.Manager, o.EventLog, o.ReplicaID = e.stack.Manager, e.stack.Manager.Store(), "second"
	second, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(second.Handler())
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		second.Shutdown(ctx)
		ts.CloseClientConnections()
		ts.Close()
	}()
	on := &env{t: t, ts: ts}
	id := e.newSession()
	var sess struct {
		LastSeq int64 `json:"last_seq"`
	}
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &sess)
	ch, cancel := on.stream(id, fmt.Sprint(sess.LastSeq))
	defer cancel()
	e.send(id, "hi")
	got := collectUntilResult(t, ch)
	for i, ev := range got {
		if ev.Event.Seq != sess.LastSeq+1+int64(i) {
			t.Fatalf("event %d on the second server has seq %d, want %d", i, ev.Event.Seq, sess.LastSeq+1+int64(i))
		}
	}
	// A fresh third server: its ring starts at the session's stored
	// last_seq, so a resume from the turn's start comes from the log.
	o.ReplicaID = "third"
	third, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts3 := httptest.NewServer(third.Handler())
	defer ts3.Close()
	defer third.Shutdown(context.Background())
	ch3, cancel3 := (&env{t: t, ts: ts3}).stream(id, fmt.Sprint(sess.LastSeq))
	defer cancel3()
	again := collectUntilResult(t, ch3)
	if len(again) != len(got) {
		t.Fatalf("the third server replayed %d events, the second streamed %d", len(again), len(got))
	}
}

func collectUntilResult(t *testing.T, ch <-chan sseEvent) []sseEvent {
	t.Helper()
	var got []sseEvent
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended after %d events, before a result", len(got))
			}
			if ev.Event.Type == event.KeepAlive || ev.ID == "" {
				continue
			}
			got = append(got, ev)
			if ev.Event.Type == event.Result {
				return got
			}
		case <-deadline:
			t.Fatalf("no result within 20 s (%d events)", len(got))
		}
	}
}
