package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
)

// A client that opens the event stream and never reads while a tool
// prints megabytes is dropped, and shutdown does not wait on it.
func TestSSENonReadingClientIsDroppedAndShutdownIsPrompt(t *testing.T) {
	e, id := newUnreadStream(t, "head -c 40000000 /dev/zero | tr '\\0' 'a' | fold -w 1000", func(o *server.Options) {
		o.ClientBuffer = 64
	})
	e.send(id, "print a lot")
	// The turn goes on to its end although the client reads nothing.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var s sessionResp
		e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
		if s.Status == "idle" && len(s.Messages) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("turn still %s with %d messages", s.Status, len(s.Messages))
		}
		time.Sleep(50 * time.Millisecond)
	}

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

func TestSSELastEventIDAheadIsUnknown(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	id := e.newSession()
	ch, stop := e.stream(id, "999")
	defer stop()
	ev := <-ch
	if ev.Event.Subtype != server.SubtypeReloadRequired || !strings.Contains(ev.Event.Message, "Last-Event-ID 999 is unknown: it is ahead of this session's stream") {
		t.Fatalf("ahead resume point: %+v", ev.Event)
	}
	if strings.Contains(ev.Event.Message, "no longer held") {
		t.Errorf("message still says no longer held: %s", ev.Event.Message)
	}
}
