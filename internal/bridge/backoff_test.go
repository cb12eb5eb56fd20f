package bridge

import (
	"context"
	"errors"
	"io"
	"log"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/store"
)

// memRecords is an in-memory Records for tests that run no session.
type memRecords struct{ taken map[string]bool }

func (m *memRecords) PutBinding(context.Context, store.BridgeBinding) error { return nil }
func (m *memRecords) Binding(context.Context, string, string) (store.BridgeBinding, error) {
	return store.BridgeBinding{}, store.ErrNotFound
}
func (m *memRecords) DeleteBinding(context.Context, string, string) error { return nil }
func (m *memRecords) TakeUpdate(_ context.Context, p, id string) (bool, error) {
	if m.taken[p+id] {
		return false, nil
	}
	m.taken[p+id] = true
	return true, nil
}
func (m *memRecords) PruneUpdates(context.Context, time.Time) (int, error) { return 0, nil }

// failing is a platform whose connection fails at once, every time, for
// the first n tries, then stays up.
type failing struct {
	*fakePlatform
	n     int
	tries []time.Time
}

func (f *failing) Receive(ctx context.Context, _ func(context.Context, Update)) error {
	f.tries = append(f.tries, time.Now())
	if len(f.tries) <= f.n {
		return errors.New("connection refused")
	}
	<-ctx.Done()
	return nil
}

// Reconnects wait 1 s, 2 s, 4 s, ... up to 2 minutes between tries.
func TestReconnectBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &failing{fakePlatform: newFake(), n: 10}
		b, err := New(f, Options{Manager: &session.Manager{}, Records: &memRecords{taken: map[string]bool{}},
			Allow: []string{"a"}, Folders: []string{t.TempDir()}, Log: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = b.Run(ctx) }()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		cancel()
		<-done
		if len(f.tries) != 11 {
			t.Fatalf("%d tries, want 11", len(f.tries))
		}
		want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 120, 120, 120}
		for i, w := range want {
			if got := f.tries[i+1].Sub(f.tries[i]); got != w*time.Second {
				t.Errorf("wait %d = %v, want %v", i+1, got, w*time.Second)
			}
		}
	})
}
