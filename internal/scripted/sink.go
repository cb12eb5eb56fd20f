package scripted

import (
	"context"
	"errors"
	"net/http"
	"time"
	"unicode/utf8"
)

// errCut means the response was deliberately cut; the handler stops.
var errCut = errors.New("response cut by fault")

// sink writes a response body piece by piece, applying the delay and
// connection-drop faults.
type sink struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	ctx       context.Context
	delay     time.Duration
	dropAfter int // -1: never
	written   int
	pieces    int
	// stall: go quiet (or only ping) before piece number stallAt.
	stall     string
	stallAt   int
	ping      []byte
	pingEvery time.Duration
}

func newSink(w http.ResponseWriter, ctx context.Context, f *Fault, proto protocol) *sink {
	k := &sink{w: w, rc: http.NewResponseController(w), ctx: ctx, dropAfter: -1}
	if f != nil {
		k.delay = f.chunkDelay()
		if f.Stall == StallBody || f.Stall == StallPings {
			k.stall, k.stallAt, k.pingEvery = f.Stall, f.StallAfterEvents, f.pingEvery()
			k.ping = []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")
			if proto == protoOpenAI {
				k.ping = []byte(": keep-alive\n\n")
			}
		}
		if f.DropAfterBytes != nil {
			k.dropAfter = *f.DropAfterBytes
		}
	}
	return k
}

// write sends one piece (an SSE event or a whole JSON body) and flushes it.
func (k *sink) write(b []byte) error {
	if k.stall != "" && k.pieces == k.stallAt {
		return k.stallNow()
	}
	if k.pieces > 0 && k.delay > 0 {
		if err := sleepCtx(k.ctx, k.delay); err != nil {
			return err
		}
	}
	k.pieces++
	if k.dropAfter >= 0 && k.written+len(b) >= k.dropAfter {
		_, _ = k.w.Write(b[:k.dropAfter-k.written])
		k.written = k.dropAfter
		k.abort()
		return errCut
	}
	if _, err := k.w.Write(b); err != nil {
		return err
	}
	k.written += len(b)
	return k.rc.Flush()
}

// stallNow sends the headers and then nothing but keep-alives (for a pings
// stall) until the client goes away.
func (k *sink) stallNow() error {
	if err := k.rc.Flush(); err != nil {
		return err
	}
	if k.stall != StallPings {
		<-k.ctx.Done()
		return k.ctx.Err()
	}
	for {
		if err := sleepCtx(k.ctx, k.pingEvery); err != nil {
			return err
		}
		if _, err := k.w.Write(k.ping); err != nil {
			return err
		}
		if err := k.rc.Flush(); err != nil {
			return err
		}
	}
}

// finish ends the body; a drop fault that was not reached yet still cuts
// the connection so the client never sees a clean end.
func (k *sink) finish() {
	if k.dropAfter >= 0 {
		k.abort()
	}
}

// abort closes the connection without finishing the HTTP response, so the
// client sees an unexpected EOF or a reset.
func (k *sink) abort() {
	// Hijack does not flush the response's own buffer, so push the partial
	// body out first.
	_ = k.rc.Flush()
	abortConn(k.w)
}

// abortConn closes the connection under the handler. It must not flush:
// that would send a 200 header when nothing was written yet.
func abortConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (HTTP/2, recorders): the body simply ends short.
		return
	}
	_ = conn.Close()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// splitChunks cuts s into pieces of roughly size bytes, preferring to cut
// before a space (as the real APIs' deltas usually start with one) and
// never inside a UTF-8 sequence.
func splitChunks(s string, size int) []string {
	if s == "" {
		return nil
	}
	if size <= 0 {
		size = defaultChunkSize
	}
	var out []string
	start := 0
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		n := i - start
		if n >= size && (s[i] == ' ' || n >= 2*size) {
			out = append(out, s[start:i])
			start = i
		}
		i += w
	}
	return append(out, s[start:])
}
