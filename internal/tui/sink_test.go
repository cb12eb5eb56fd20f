package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
)

// Events emitted before the UI starts are kept, and a burst arrives in
// order, batched, without Emit ever waiting for the screen.
func TestSinkBatchesInOrder(t *testing.T) {
	s := NewSink()
	s.Emit(event.Event{Seq: 1})
	got := make(chan eventsMsg, 100)
	block := make(chan struct{})
	stop := s.pump(func(m tea.Msg) { <-block; got <- m.(eventsMsg) })
	defer stop()
	done := make(chan struct{})
	go func() {
		for i := int64(2); i <= 500; i++ {
			s.Emit(event.Event{Seq: i})
		}
		close(done)
	}()
	select {
	case <-done: // the UI has not taken anything yet: Emit did not wait
	case <-time.After(10 * time.Second):
		t.Fatal("Emit blocked on a busy UI")
	}
	close(block)
	var seqs []int64
	batches := 0
	for len(seqs) < 500 {
		select {
		case b := <-got:
			batches++
			for _, e := range b {
				seqs = append(seqs, e.Seq)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d of 500 events", len(seqs))
		}
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, s)
		}
	}
	if batches > 10 {
		t.Errorf("500 events in %d batches: not batched", batches)
	}
}
