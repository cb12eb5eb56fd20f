package provider

import (
	"io"
	"strings"
	"testing"
	"time"
)

// The watched body tells keep-alives from progress line by line.
func TestWatchedBodyCountsPings(t *testing.T) {
	w := &watchdog{cancel: func() {}, idle: time.Hour}
	body := &watchedBody{rc: io.NopCloser(strings.NewReader(
		": keep-alive\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\ndata: {\"type\":\"ping\"}\n\n")), w: w}
	io.ReadAll(body)
	if w.progress || w.pings != 3 {
		t.Errorf("after three keep-alives: progress %v, pings %d", w.progress, w.pings)
	}
	body = &watchedBody{rc: io.NopCloser(strings.NewReader("event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n: keep-alive\n\n")), w: w}
	io.ReadAll(body)
	if !w.progress || w.pings != 1 {
		t.Errorf("after an event and a keep-alive: progress %v, pings %d", w.progress, w.pings)
	}
	w.stop()
}
