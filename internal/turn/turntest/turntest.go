// Package turntest has in-memory stand-ins for a runtime's dependencies,
// shared by the runtimes' tests.
package turntest

import (
	"context"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Recorder is an in-memory turn.Recorder.
type Recorder struct {
	// ParentToolUseID, Title and Model are a child's (see Child).
	ParentToolUseID, Title, Model string

	mu       sync.Mutex
	msgs     []message.Message
	meta     map[string]string
	children []*Recorder
}

// History returns a copy of the stored messages.
func (r *Recorder) History(context.Context) ([]message.Message, error) {
	return r.Messages(), nil
}

// Messages returns a copy of the stored messages.
func (r *Recorder) Messages() []message.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message.Message(nil), r.msgs...)
}

// Append stores m.
func (r *Recorder) Append(_ context.Context, m message.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

// Meta returns a stored value ("" when unset).
func (r *Recorder) Meta(_ context.Context, k string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meta[k], nil
}

// SetMeta stores a value.
func (r *Recorder) SetMeta(_ context.Context, k, v string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.meta == nil {
		r.meta = map[string]string{}
	}
	r.meta[k] = v
	return nil
}

// Events collects emitted events; it is an event.Sink.
type Events struct {
	mu  sync.Mutex
	evs []event.Event
}

// Emit records e.
func (l *Events) Emit(e event.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

// All returns a copy of the events so far.
func (l *Events) All() []event.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event.Event(nil), l.evs...)
}

// Value returns a stored value ("" when unset); Meta without the context.
func (r *Recorder) Value(k string) string {
	v, _ := r.Meta(context.Background(), k)
	return v
}

// Child implements turn.ChildRecorder with an in-memory child.
func (r *Recorder) Child(_ context.Context, parentToolUseID, title, model string) (string, turn.Recorder, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &Recorder{ParentToolUseID: parentToolUseID, Title: title, Model: model}
	r.children = append(r.children, c)
	return fmt.Sprintf("child_%d", len(r.children)), c, nil
}

// Children returns the child recorders made so far.
func (r *Recorder) Children() []*Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Recorder(nil), r.children...)
}
