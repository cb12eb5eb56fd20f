package event

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a sink that keeps what it is given. The emitter calls sinks
// under its lock, but the mutex keeps the test honest if that changes.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) Emit(e Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.evs...)
}

func TestEmitterConcurrentSeq(t *testing.T) {
	const (
		lastSeq    = 41
		goroutines = 32
		perG       = 250
	)
	a, b := &recorder{}, &recorder{}
	em := NewEmitter("ses_concurrent", lastSeq, a, b)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				// Attempt and NumTurns carry who sent it and in which order.
				em.Emit(Event{Type: Text, Attempt: g, NumTurns: i})
			}
		}()
	}
	wg.Wait()

	total := goroutines * perG
	if got := em.LastSeq(); got != lastSeq+int64(total) {
		t.Fatalf("LastSeq = %d, want %d", got, lastSeq+total)
	}
	for name, r := range map[string]*recorder{"first sink": a, "second sink": b} {
		evs := r.events()
		if len(evs) != total {
			t.Fatalf("%s got %d events, want %d", name, len(evs), total)
		}
		next := make([]int, goroutines)
		for i, e := range evs {
			if want := int64(lastSeq + 1 + i); e.Seq != want {
				t.Fatalf("%s: event %d has seq %d, want %d (seq must rise by one, in delivery order)", name, i, e.Seq, want)
			}
			if e.SessionID != "ses_concurrent" || e.Time.IsZero() {
				t.Fatalf("%s: event %d not stamped: %+v", name, i, e)
			}
			if e.NumTurns != next[e.Attempt] {
				t.Fatalf("%s: goroutine %d's event %d arrived when %d was expected", name, e.Attempt, e.NumTurns, next[e.Attempt])
			}
			next[e.Attempt]++
		}
	}
	if !reflect.DeepEqual(a.events(), b.events()) {
		t.Fatal("the two sinks saw different streams")
	}
}

func TestPublishReturnsStamped(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 48213000, time.FixedZone("CET", 3600))
	preset := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name      string
		in        Event
		wantSess  string
		wantTime  time.Time
		wantSeqAt int64
	}{
		{name: "fills the envelope", in: Event{Type: Result, Subtype: SubtypeSuccess},
			wantSess: "ses_a", wantTime: at.UTC(), wantSeqAt: 8},
		{name: "keeps a session id the producer set", in: Event{Type: PermissionRequest, SessionID: "ses_other"},
			wantSess: "ses_other", wantTime: at.UTC(), wantSeqAt: 8},
		{name: "keeps a time the producer set", in: Event{Type: Status, Time: preset},
			wantSess: "ses_a", wantTime: preset, wantSeqAt: 8},
		{name: "overrides a seq the producer set", in: Event{Type: Done, Seq: 1000},
			wantSess: "ses_a", wantTime: at.UTC(), wantSeqAt: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []Event
			em := NewEmitter("ses_a", 7, SinkFunc(func(e Event) { seen = append(seen, e) }))
			em.now = func() time.Time { return at }
			got := em.Publish(tt.in)
			if len(seen) != 1 || !reflect.DeepEqual(seen[0], got) {
				t.Fatalf("Publish returned %+v, the sink saw %+v", got, seen)
			}
			if got.Seq != tt.wantSeqAt || got.SessionID != tt.wantSess || !got.Time.Equal(tt.wantTime) {
				t.Fatalf("stamped seq=%d session=%q ts=%v, want %d %q %v", got.Seq, got.SessionID, got.Time, tt.wantSeqAt, tt.wantSess, tt.wantTime)
			}
			if got.Time.Location() != time.UTC {
				t.Fatalf("ts is in %v, want UTC", got.Time.Location())
			}
			if got.Type != tt.in.Type || got.Subtype != tt.in.Subtype {
				t.Fatalf("payload changed: %+v", got)
			}
		})
	}
}

func TestEmitterSessionAndSinks(t *testing.T) {
	first, late := &recorder{}, &recorder{}
	em := NewEmitter("", 0, first)
	em.Emit(Event{Type: Status})
	em.SetSessionID("ses_lazy")
	em.AddSink(late)
	em.Emit(Event{Type: Text, Text: "hi"})

	fe, le := first.events(), late.events()
	if len(fe) != 2 || fe[0].SessionID != "" || fe[1].SessionID != "ses_lazy" {
		t.Fatalf("first sink saw %+v", fe)
	}
	if len(le) != 1 || le[0].Seq != 2 || le[0].Text != "hi" {
		t.Fatalf("a sink added later must see only the events after it, got %+v", le)
	}
}

func TestOnlyEnvelopeAlwaysPresent(t *testing.T) {
	envelope := map[string]bool{"type": true, "session_id": true, "seq": true, "ts": true}
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if envelope[name] {
			continue
		}
		if !strings.Contains(opts, "omitempty") {
			t.Errorf("Event.%s (%q) is not omitempty: it would appear in every event type", f.Name, name)
		}
	}
	b, err := json.Marshal(Event{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(envelope) {
		t.Fatalf("an empty event encodes as %s, want only the envelope", b)
	}
}

// EmitAfter places an event right after the first match, with the next
// seq, once; a cancelled one is never emitted.
func TestEmitAfter(t *testing.T) {
	var got []Event
	em := NewEmitter("s", 0, SinkFunc(func(e Event) { got = append(got, e) }))
	em.EmitAfter(func(e Event) bool { return e.Type == Status }, Event{Type: RewindPoint, Checkpoint: 1})
	cancel := em.EmitAfter(func(e Event) bool { return e.Type == Result }, Event{Type: RewindPoint, Checkpoint: 9})
	em.Emit(Event{Type: Text})
	em.Emit(Event{Type: Status})
	em.Emit(Event{Type: Status})
	cancel()
	em.Emit(Event{Type: Result})
	var types []string
	for i, e := range got {
		types = append(types, string(e.Type))
		if e.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
	}
	if strings.Join(types, " ") != "text status rewind_point status result" || got[2].Checkpoint != 1 {
		t.Errorf("events: %v", types)
	}
}
