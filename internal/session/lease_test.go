package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/turn"
)

// blockingRuntime emits an event and waits until released.
type blockingRuntime struct {
	started chan struct{}
	release chan struct{}
}

func (b *blockingRuntime) Name() string { return "blocking" }
func (b *blockingRuntime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	d.Events.Emit(event.Event{Type: event.Status})
	close(b.started)
	select {
	case <-b.release:
	case <-ctx.Done():
		return event.Event{}, ctx.Err()
	}
	return d.Events.Publish(event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}), nil
}

// Two managers over one store stand for two processes: the second cannot
// run a turn of a session the first is running, and when it runs one
// later its events continue the first's numbering. On synctest's clock
// the second waits the default Wait to the nanosecond before it gives up.
func TestLeaseOneRunnerPerSessionAcrossManagers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m1, _, work := setup(t)
		ctx := context.Background()
		br := &blockingRuntime{started: make(chan struct{}), release: make(chan struct{})}
		m1.wiring = &fakeWiring{rt: br}
		m2 := NewManager(m1.Store(), &fakeWiring{rt: &echoRuntime{}}, t.TempDir())

		l1, err := m1.Open(ctx, OpenRequest{Cwd: work})
		if err != nil {
			t.Fatal(err)
		}
		defer l1.Close()
		l2, err := m2.Open(ctx, OpenRequest{ID: l1.ID()})
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()

		done := make(chan error, 1)
		go func() { _, err := l1.Run(ctx, "long", TurnOptions{}); done <- err }()
		<-br.started
		start := time.Now()
		_, err = l2.Run(ctx, "second", TurnOptions{})
		if !errors.Is(err, store.ErrBusy) {
			t.Fatalf("second runner got %v, want busy", err)
		}
		if waited, want := time.Since(start), DefaultLeaseOptions().Wait; waited != want {
			t.Errorf("gave up after %v, want the lease wait %v", waited, want)
		}
		if !strings.Contains(err.Error(), "is busy (running in pid") {
			t.Errorf("message: %v", err)
		}
		close(br.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		firstLast := l1.Events().LastSeq()
		res, err := l2.Run(ctx, "now", TurnOptions{})
		if err != nil {
			t.Fatalf("after the first turn ended: %v", err)
		}
		if res.Seq <= firstLast+2 { // status, text, result after firstLast
			t.Errorf("second runner's result seq %d does not continue after %d", res.Seq, firstLast)
		}
	})
}

// A lease lost mid-turn (another runner took it over after this process
// stalled) stops the turn with an error saying so, at the first heartbeat
// after (synctest's clock: the default heartbeat, exactly).
func TestLeaseLostStopsTheTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _, work := setup(t)
		ctx := context.Background()
		br := &blockingRuntime{started: make(chan struct{}), release: make(chan struct{})}
		m.wiring = &fakeWiring{rt: br}
		var errs []string
		var mu sync.Mutex
		l, err := m.Open(ctx, OpenRequest{Cwd: work, Sinks: []event.Sink{event.SinkFunc(func(e event.Event) {
			if e.Type == event.Error {
				mu.Lock()
				errs = append(errs, e.Error)
				mu.Unlock()
			}
		})}})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		done := make(chan error, 1)
		go func() { _, err := l.Run(ctx, "long", TurnOptions{}); done <- err }()
		<-br.started
		start := time.Now()
		if err := m.Store().ReleaseLease(ctx, l.ID(), m.holder.ID); err != nil {
			t.Fatal(err)
		}
		if err := m.Store().AcquireLease(ctx, l.ID(), store.Holder{ID: "other", PID: 1, Host: "elsewhere"}, time.Minute, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "taken over by another process") {
				t.Fatalf("turn ended with %v", err)
			}
			if took, want := time.Since(start), DefaultLeaseOptions().Heartbeat; took != want {
				t.Errorf("the turn stopped %v after the takeover, want at the next heartbeat (%v)", took, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(errs) != 1 || !strings.Contains(errs[0], "taken over by another process") {
				t.Errorf("error events %q", errs)
			}
		case <-time.After(time.Hour):
			t.Fatal("turn kept running without its lease")
		}
	})
}
