package session

import (
	"context"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/turn"
)

// gateRuntime runs a turn until the test opens its gate (or the turn is
// interrupted), noting how many ran at once.
type gateRuntime struct {
	gate chan struct{}

	mu      sync.Mutex
	running int
	most    int
	prompts []string
}

func (g *gateRuntime) Name() string { return "gate" }
func (g *gateRuntime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	g.mu.Lock()
	g.running++
	g.most = max(g.most, g.running)
	g.prompts = append(g.prompts, in.Prompt)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.running--; g.mu.Unlock() }()
	d.Events.Emit(event.Event{Type: event.Text, Text: "working on " + in.Prompt})
	res := event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}
	select {
	case <-g.gate:
	case <-ctx.Done():
		res = event.Event{Type: event.Result, Subtype: event.SubtypeInterrupted, IsError: true}
	}
	res = d.Events.Publish(res)
	d.Events.Emit(event.Event{Type: event.Done})
	return res, nil
}

// evRecorder keeps the events a sink got.
type evRecorder struct {
	mu  sync.Mutex
	evs []event.Event
	got chan event.Event
}

func newEvRecorder() *evRecorder { return &evRecorder{got: make(chan event.Event, 100)} }
func (r *evRecorder) Emit(e event.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
	r.got <- e
}

// until waits for an event cond accepts.
func (r *evRecorder) until(t *testing.T, cond func(event.Event) bool) event.Event {
	t.Helper()
	for e := range r.got {
		if cond(e) {
			return e
		}
	}
	t.Fatal("no such event")
	return event.Event{}
}

// Two front ends on one LocalHost share one live session: each sees the
// other's turns (started by a user_message with its origin), a prompt
// sent while a turn runs waits for it, either may interrupt the other's,
// and the session closes when the last one detaches.
func TestLocalHostSharesOneSession(t *testing.T) {
	m, w, work := setup(t)
	g := &gateRuntime{gate: make(chan struct{})}
	w.rt = g
	h := NewLocalHost(m)
	ctx := context.Background()
	ra, rb := newEvRecorder(), newEvRecorder()
	a, err := h.Attach(ctx, OpenRequest{Cwd: work}, ra)
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.Attach(ctx, OpenRequest{ID: a.ID()}, rb)
	if err != nil {
		t.Fatal(err)
	}
	la, _ := a.Live(ctx)
	lb, _ := b.Live(ctx)
	if la != lb {
		t.Fatal("the second front end got a live session of its own")
	}
	if q, err := a.Prompt(ctx, "first", TurnOptions{Origin: "chat:1"}); err != nil || q {
		t.Fatalf("first prompt: queued %v, %v", q, err)
	}
	start := rb.until(t, func(e event.Event) bool { return e.Subtype == event.SubtypeUserMessage })
	if start.Text != "first" || start.Meta["origin"] != "chat:1" {
		t.Errorf("the other front end saw the turn start as %q from %v", start.Text, start.Meta)
	}
	rb.until(t, func(e event.Event) bool { return e.Type == event.Text })
	if q, err := b.Prompt(ctx, "second", TurnOptions{Origin: "web"}); err != nil || !q {
		t.Fatalf("a prompt during the first turn: queued %v, %v; want queued", q, err)
	}
	if !a.Busy() || !b.Busy() {
		t.Error("a running turn is not busy")
	}
	g.gate <- struct{}{} // the first turn ends; the second starts
	ra.until(t, func(e event.Event) bool { return e.Subtype == event.SubtypeUserMessage && e.Text == "second" })
	ra.until(t, func(e event.Event) bool { return e.Type == event.Text })
	if !a.Interrupt(ctx) { // a stops b's turn
		t.Error("interrupt found no running turn")
	}
	if res := ra.until(t, func(e event.Event) bool { return e.Type == event.Result }); res.Subtype != event.SubtypeInterrupted {
		t.Errorf("the second turn ended %q, want interrupted", res.Subtype)
	}
	a.Detach("other")
	g.mu.Lock()
	if g.most != 1 || len(g.prompts) != 2 {
		t.Errorf("turns at once: %d (prompts %q), want one at a time", g.most, g.prompts)
	}
	g.mu.Unlock()
	a.Detach("other")
	if w.closed != 0 {
		t.Error("the session closed while another front end held it")
	}
	b.Detach("other")
	if w.closed != 1 {
		t.Errorf("the session closed %d times after the last front end left, want once", w.closed)
	}
}
