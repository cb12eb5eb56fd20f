package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
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

// fakeStream is an in-memory RoundTripper: its answer's body is fed by
// write, line by line, paced by the test, and ends (with the context's
// error) when the request is cancelled, as a real connection does.
type fakeStream struct {
	headers bool // false: never answer, as a server that accepts and says nothing
	pw      *io.PipeWriter
}

func (f *fakeStream) RoundTrip(req *http.Request) (*http.Response, error) {
	if !f.headers {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	pr, pw := io.Pipe()
	f.pw = pw
	go func() {
		<-req.Context().Done()
		pw.CloseWithError(req.Context().Err())
	}()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
}

// watchRead sends one streaming request through the watch transport with
// the default timeouts and reads the body to its end, feeding it from
// feed; it returns how long (on the bubble's clock) the call took and the
// read's error.
func watchRead(t *testing.T, headers bool, feed func(w io.Writer)) (time.Duration, error) {
	t.Helper()
	base := &fakeStream{headers: headers}
	tr := &watchTransport{base: base, firstByte: DefaultFirstByteTimeout, idle: DefaultIdleTimeout}
	ctx, cancel := context.WithCancel(Streaming(context.Background()))
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://model.invalid/v1/messages", nil)
	start := time.Now()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return time.Since(start), err
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		feed(base.pw)
		base.pw.Close()
	}()
	_, err = io.ReadAll(resp.Body)
	took := time.Since(start)
	resp.Body.Close()
	<-fed // a feeder must stop once its writes fail: the bubble ends with no goroutine left
	return took, err
}

// On synctest's clock the real timeouts (60 s to the first event, 90 s
// idle) are exact: a stream paced just inside them completes, pings do not
// keep it alive, and silence fails at the limit to the nanosecond,
// however loaded the machine.
func TestWatchTimeoutsOnFakeClock(t *testing.T) {
	delta := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"
	ping := ": keep-alive\n\n"
	t.Run("paced inside the idle timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			took, err := watchRead(t, true, func(w io.Writer) {
				// The first event just inside the first-byte timeout,
				// then each just inside the idle one.
				time.Sleep(DefaultFirstByteTimeout - time.Second)
				for i := range 4 {
					if i > 0 {
						time.Sleep(DefaultIdleTimeout - time.Second)
					}
					if _, err := io.WriteString(w, delta); err != nil {
						return
					}
				}
			})
			if want := DefaultFirstByteTimeout + 3*DefaultIdleTimeout - 4*time.Second; err != nil || took != want {
				t.Fatalf("a stream with a delta every %v: %v after %v", DefaultIdleTimeout-time.Second, err, took)
			}
		})
	})
	t.Run("pings after progress", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			took, err := watchRead(t, true, func(w io.Writer) {
				io.WriteString(w, delta)
				for range 100 {
					time.Sleep(10 * time.Second)
					if _, err := io.WriteString(w, ping); err != nil {
						return
					}
				}
			})
			var se *StallError
			if !errors.As(err, &se) || se.Phase != "idle" || took != DefaultIdleTimeout {
				t.Fatalf("pings only after a delta: %v after %v, want an idle stall after %v", err, took, DefaultIdleTimeout)
			}
			if se.Pings == 0 {
				t.Errorf("the stall does not count the pings: %+v", se)
			}
		})
	})
	t.Run("no headers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			took, err := watchRead(t, false, nil)
			var se *StallError
			if !errors.As(err, &se) || se.Phase != "first byte" || took != DefaultFirstByteTimeout {
				t.Fatalf("no answer: %v after %v, want a first-byte stall after %v", err, took, DefaultFirstByteTimeout)
			}
		})
	})
}
