package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
)

func testRenderer(f *fakePlatform, red *secrets.Redactor) *renderer {
	b := &Bridge{plat: &redacting{Platform: f, r: red}, opts: Options{Redact: red}}
	return newRenderer(b, Chat{ID: "c"}, "fake:c", nil)
}

// A secret streamed a few bytes at a time never shows, not even its
// start in an intermediate edit.
func TestStreamingHoldsBackASecretStillArriving(t *testing.T) {
	const secret = "sk-stream-0123456789abcdefghij"
	red := secrets.New([]string{"STREAM_KEY"}, nil).Redactor([]string{"STREAM_KEY=" + secret})
	f := newFake()
	r := testRenderer(f, red)
	ctx := context.Background()
	text := "here it is: " + secret + " and more text after it"
	for i := 0; i < len(text); i += 3 {
		r.event(ctx, event.Event{Type: event.Text, Text: text[i:min(i+3, len(text))]})
		r.stream(ctx)
	}
	r.flush(ctx)
	for _, l := range f.snapshotLog() {
		if strings.Contains(l, secret[:6]) {
			t.Errorf("sent %q", l)
		}
	}
	if got := f.transcript(); !strings.Contains(got, "here it is: [REDACTED] and more text after it") {
		t.Errorf("transcript = %s", got)
	}
}

// Text longer than a message goes on in the next; past maxParts messages
// the rest is kept for a file.
func TestLongTextIsSplitThenFiled(t *testing.T) {
	f := newFake()
	f.lim.MaxText = 10
	r := testRenderer(f, nil)
	ctx := context.Background()
	r.event(ctx, event.Event{Type: event.Text, Text: strings.Repeat("abcdefghij", 6)})
	r.flush(ctx)
	if n := len(f.order); n != maxParts {
		t.Errorf("%d messages, want %d:\n%s", n, maxParts, f.transcript())
	}
	for _, id := range f.order {
		if m := f.msgs[id]; m != "abcdefghij" {
			t.Errorf("message %s = %q", id, m)
		}
	}
	if got := r.overflow.String(); got != strings.Repeat("abcdefghij", 2) {
		t.Errorf("overflow = %q", got)
	}
}

// Streamed text edits its message at most once per Limits.EditEvery, and
// the last text is sent when the turn ends.
func TestStreamingEditsAreThrottled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.lim.EditEvery = time.Second
		r := testRenderer(f, nil)
		go r.loop(context.Background())
		for i := range 30 { // 3 s of text, a chunk every 100 ms
			r.push(event.Event{Type: event.Text, Text: fmt.Sprint(i, " ")})
			time.Sleep(100 * time.Millisecond)
		}
		synctest.Wait()
		f.mu.Lock()
		times := append([]time.Time(nil), f.at...)
		f.mu.Unlock()
		if len(times) < 3 || len(times) > 4 {
			t.Errorf("%d sends and edits in 3 s, want 3 or 4", len(times))
		}
		for i := 1; i < len(times); i++ {
			if d := times[i].Sub(times[i-1]); d < time.Second {
				t.Errorf("edit %d came %v after the one before", i, d)
			}
		}
		r.finish()
		if got := f.transcript(); !strings.Contains(got, "29") {
			t.Errorf("the last text was not sent: %s", got)
		}
	})
}
