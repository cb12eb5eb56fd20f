package server_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
)

// pausingLog is an event log whose next LastEventSeq, once armed, stops
// after reading until let go: a request that reads it is held there
// while the test moves the session on.
type pausingLog struct {
	server.EventLog
	mu      sync.Mutex
	armed   bool
	reached chan struct{}
	resume  chan struct{} // nil once closed
}

// arm holds the next read; the channel closes when one is held.
func (l *pausingLog) arm() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed, l.reached, l.resume = true, make(chan struct{}), make(chan struct{})
	return l.reached
}

// disarm lets a held read go, and no later one be held.
func (l *pausingLog) disarm() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	if l.resume != nil {
		close(l.resume)
		l.resume = nil
	}
}

func (l *pausingLog) LastEventSeq(ctx context.Context, id string) (int64, error) {
	seq, err := l.EventLog.LastEventSeq(ctx, id)
	l.mu.Lock()
	armed, reached, resume := l.armed, l.reached, l.resume
	if armed {
		close(reached)
		l.armed = false // one hold: a later read goes on
	}
	l.mu.Unlock()
	if armed {
		<-resume
	}
	return seq, err
}

// Two replicas on one PostgreSQL. A client loads an idle session from B
// just as a turn starts: B's snapshot is read around the turn's start
// (held between its parts while the turn begins and stores its prompt).
// The snapshot's messages and B's event stream after its last_seq show
// the prompt exactly once between them.
func TestReplicaSnapshotAtTurnStartShowsThePromptOnce(t *testing.T) {
	dbURL := privatePG(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("Wrote it."),
	}}
	a := newPGReplica(t, dbURL, "a", script, "")
	held := &pausingLog{}
	b := newPGReplica(t, dbURL, "b", script, a.ws, func(o *server.Options) {
		held.EventLog = o.EventLog
		o.EventLog = held
	})
	id := a.newSession()

	type got struct {
		code int
		data []byte
	}
	reached := held.arm()
	done := make(chan got, 1)
	go func() {
		code, data := b.do("GET", "/api/sessions/"+id, nil)
		done <- got{code, data}
	}()
	var snap got
	select {
	case <-reached: // the old boundary read: the turn starts now
		a.send(id, "write the file")
		storedUntil(t, a, id, 0, isType(event.PermissionRequest)) // its prompt is stored by now
		held.disarm()
		snap = <-done
	case snap = <-done: // read at one instant: the turn starts after it
		held.disarm()
		a.send(id, "write the file")
	}
	if snap.code != 200 {
		t.Fatalf("GET the session on B: %d %s", snap.code, snap.data)
	}
	var d struct {
		LastSeq  int64             `json:"last_seq"`
		Messages []message.Message `json:"messages"`
	}
	if err := json.Unmarshal(snap.data, &d); err != nil {
		t.Fatal(err)
	}
	prompts := 0
	for _, m := range d.Messages {
		if m.Role == message.User && strings.Contains(m.PlainText(), "write the file") {
			prompts++
		}
	}
	fromB, stopB := b.stream(id, strconv.FormatInt(d.LastSeq, 10))
	defer stopB()
	for _, ev := range until(t, fromB, isType(event.PermissionRequest)) {
		if ev.Event.Type == event.Status && ev.Event.Subtype == server.SubtypeUserMessage {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("the prompt shows %d times in B's snapshot (%d messages, last_seq %d) and its stream after it; want once", prompts, len(d.Messages), d.LastSeq)
	}
}
