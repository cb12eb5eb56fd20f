package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/turn"
)

// echoRuntime records the prompt and answers it, emitting a few events.
type echoRuntime struct{ inputs []turn.Input }

func (e *echoRuntime) Name() string { return "echo" }
func (e *echoRuntime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	e.inputs = append(e.inputs, in)
	d.Events.Emit(event.Event{Type: event.Status})
	if err := d.Recorder.Append(ctx, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(in.Prompt)}}); err != nil {
		return event.Event{}, err
	}
	d.Events.Emit(event.Event{Type: event.Text, Text: "echo " + in.Prompt})
	return d.Events.Publish(event.Event{Type: event.Result, Subtype: event.SubtypeSuccess, Result: "echo " + in.Prompt}), nil
}

type fakeWiring struct {
	rt     turn.Runtime
	closed int
	// idle receives the equipment's Idle calls, when set.
	idle chan struct{}
	// caps are what the equipment offers beyond turns.
	caps Capabilities
	mu   sync.Mutex
}

func (w *fakeWiring) Equip(_ context.Context, l *Live) (Equipment, error) {
	l.Events().Emit(event.Event{Type: event.Status, Message: "equipped"}) // like an MCP status
	return fakeEquipment{w}, nil
}

// fakeEquipment runs every turn on its wiring's runtime.
type fakeEquipment struct{ w *fakeWiring }

func (e fakeEquipment) Checker() permission.Checker                 { return nil }
func (e fakeEquipment) Runtime(runtimes.Name) (turn.Runtime, error) { return e.w.rt, nil }
func (e fakeEquipment) ExpandPrompt(_ context.Context, prompt string) Expansion {
	return Expansion{Prompt: prompt}
}
func (e fakeEquipment) Capabilities() Capabilities { return e.w.caps }
func (e fakeEquipment) Close()                     { e.w.mu.Lock(); e.w.closed++; e.w.mu.Unlock() }
func (e fakeEquipment) Idle() {
	if e.w.idle != nil {
		e.w.idle <- struct{}{}
	}
}

func setup(t *testing.T) (*Manager, *fakeWiring, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := storeopen.Open(context.Background(), filepath.Join(dir, "t.db"), storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &fakeWiring{rt: &echoRuntime{}, idle: make(chan struct{}, 4)}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	return NewManager(st, w, dir), w, work
}

func TestOpenRunResumeKeepsSeq(t *testing.T) {
	m, w, work := setup(t)
	ctx := context.Background()
	var seen []event.Event
	l, err := m.Open(ctx, OpenRequest{Cwd: work, Model: "p/m", Mode: "plan",
		Sinks: []event.Sink{event.SinkFunc(func(e event.Event) { seen = append(seen, e) })}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Message != "equipped" {
		t.Fatalf("early sink missed equip events: %+v", seen)
	}
	res, err := l.Run(ctx, "hi", TurnOptions{MaxTurns: 3})
	if err != nil || res.Result != "echo hi" || res.Seq != 4 {
		t.Fatalf("run: %+v %v", res, err)
	}
	if in := w.rt.(*echoRuntime).inputs[0]; in.Mode != permission.Explore || in.MaxTurns != 3 || in.Model != "p/m" {
		t.Errorf("turn input %+v", in)
	}
	if err := l.Update(ctx, "", "", "bogus"); err == nil {
		t.Error("an unknown mode must be refused")
	}
	l.Events().Emit(event.Event{Type: event.Status}) // outside a turn: seq 5
	id := l.Snapshot().ID
	l.Close()
	if w.closed != 1 {
		t.Errorf("release ran %d times", w.closed)
	}
	if _, err := l.Run(ctx, "x", TurnOptions{}); err == nil {
		t.Error("a closed session must refuse turns")
	}
	// Reopen: numbering continues after the event emitted outside the turn
	// (and after the equip event of the new process).
	l2, err := m.Open(ctx, OpenRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if got := l2.Events().LastSeq(); got != 6 {
		t.Fatalf("reopened seq %d, want 6", got)
	}
	res2, _ := l2.Run(ctx, "again", TurnOptions{})
	if res2.Seq <= 6 {
		t.Errorf("seq reused: %d", res2.Seq)
	}
}

func TestContinueAndErrors(t *testing.T) {
	m, _, work := setup(t)
	ctx := context.Background()
	if _, err := m.Open(ctx, OpenRequest{Continue: true, Cwd: work}); err == nil {
		t.Error("continue with no session should fail")
	}
	if _, err := m.Open(ctx, OpenRequest{ID: "ses_nosuchsession"}); err == nil {
		t.Error("unknown id should fail")
	}
	if _, err := m.Open(ctx, OpenRequest{Cwd: filepath.Join(work, "missing")}); err == nil {
		t.Error("missing folder should fail")
	}
	l, err := m.Open(ctx, OpenRequest{Cwd: work, Mode: "trust"})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	l2, err := m.Open(ctx, OpenRequest{Continue: true, Cwd: work, ModeFromRequest: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if l2.Snapshot().ID != l.Snapshot().ID || l2.Snapshot().Mode != "" {
		t.Errorf("continue: %+v", l2.Snapshot())
	}
}

type panicRuntime struct{}

func (panicRuntime) Name() string { return "panicky" }
func (panicRuntime) RunTurn(context.Context, turn.Input, turn.Deps) (event.Event, error) {
	var p *struct{ x int }
	return event.Event{Result: fmt.Sprint(p.x)}, nil // nil dereference
}

func TestRuntimePanicIsAnError(t *testing.T) {
	m, _, work := setup(t)
	m.wiring = &fakeWiring{rt: panicRuntime{}}
	l, err := m.Open(context.Background(), OpenRequest{Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Run(context.Background(), "hi", TurnOptions{}); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("want an internal error, got %v", err)
	}
}

// The equipment's Idle runs once after a turn when no next turn starts,
// and never after Close.
func TestIdleAfterTurn(t *testing.T) {
	m, w, work := setup(t)
	l, err := m.Open(context.Background(), OpenRequest{Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	idle := w.idle
	l.SetIdleAfter(20 * time.Millisecond)
	if _, err := l.Run(context.Background(), "hi", TurnOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("OnIdle did not run after the turn")
	}
	l.SetIdleAfter(time.Hour) // the next turn's timer must not fire, and Close stops it
	if _, err := l.Run(context.Background(), "again", TurnOptions{}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l.mu.Lock()
	armed := l.idle != nil
	l.mu.Unlock()
	if armed || len(idle) != 0 {
		t.Errorf("idle timer left after Close (armed %v, fired %d)", armed, len(idle))
	}
}

// switchEquipment refuses a switch to "p/refused" and logs the others.
type switchEquipment struct {
	fakeEquipment
	log *[]string
}

func (e switchEquipment) PreModelSwitch(_ context.Context, from, to string) error {
	if to == "p/refused" {
		return errors.New("refused by a hook")
	}
	*e.log = append(*e.log, "pre "+from+" "+to)
	return nil
}
func (e switchEquipment) PostModelSwitch(_ context.Context, from, to string) {
	*e.log = append(*e.log, "post "+from+" "+to)
}
func (e switchEquipment) Capabilities() Capabilities { return Capabilities{ModelSwitch: e} }

type switchWiring struct {
	fakeWiring
	log []string
}

func (w *switchWiring) Equip(context.Context, *Live) (Equipment, error) {
	return switchEquipment{fakeEquipment{&w.fakeWiring}, &w.log}, nil
}

// A model switch runs the equipment's hooks around it; a refusal leaves
// the model as it was.
func TestUpdateRunsModelSwitchHooks(t *testing.T) {
	_, _, work := setup(t)
	dir := t.TempDir()
	st, err := storeopen.Open(context.Background(), filepath.Join(dir, "t.db"), storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &switchWiring{fakeWiring: fakeWiring{rt: &echoRuntime{}}}
	ctx := context.Background()
	l, err := NewManager(st, w, dir).Open(ctx, OpenRequest{Cwd: work, Model: "p/a"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Update(ctx, "p/refused", "", ""); err == nil || l.Snapshot().Model != "p/a" {
		t.Errorf("refused switch: %v, model %s", err, l.Snapshot().Model)
	}
	if err := l.Update(ctx, "p/b", "", ""); err != nil || l.Snapshot().Model != "p/b" {
		t.Fatalf("switch: %v, model %s", err, l.Snapshot().Model)
	}
	if err := l.Update(ctx, "p/b", "", "explore"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(w.log, "|") != "pre p/a p/b|post p/a p/b" {
		t.Errorf("hooks ran %q", w.log)
	}
}
