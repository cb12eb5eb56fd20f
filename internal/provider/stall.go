package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Default stream timeouts. First byte: a big prompt can take a while before
// the first token, but every real API starts its stream (message_start,
// a role chunk) within seconds. Idle: thinking models pause between
// deltas; 90 s of nothing but keep-alives means the stream is stuck.
const (
	DefaultFirstByteTimeout = 60 * time.Second
	DefaultIdleTimeout      = 90 * time.Second
)

// StallError says a provider stream stopped making progress: no response,
// or no event but keep-alives, within a timeout. It is retryable: a fresh
// attempt usually gets a working stream.
type StallError struct {
	// Phase is "first byte" (nothing, or only headers and keep-alives, since
	// the request was sent) or "idle" (the stream stopped after starting).
	Phase string
	Limit time.Duration
	// Pings counts the keep-alives that arrived meanwhile.
	Pings int
}

func (e *StallError) Error() string {
	var msg string
	if e.Phase == "idle" {
		msg = fmt.Sprintf("the stream stalled: no data for %v", e.Limit)
	} else {
		msg = fmt.Sprintf("no response within %v", e.Limit)
	}
	if e.Pings > 0 {
		msg += fmt.Sprintf(" (only %d keep-alive pings)", e.Pings)
	}
	return msg
}

// ContentError is a 200 answer to a streaming call that is not an event
// stream: an HTML page from a proxy or login portal, or a JSON error sent
// with status 200.
type ContentError struct {
	ContentType string
	Snippet     string // the first bytes, whitespace collapsed
	Transient   bool   // the page says a gateway failed (502/503/504), or the JSON names a transient error
}

func (e *ContentError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	msg := fmt.Sprintf("the server answered 200 with %s instead of an event stream", ct)
	if m := BodyMessage([]byte(e.Snippet)); m != "" {
		msg += ": " + m
	} else if e.Snippet != "" {
		msg += fmt.Sprintf(": %q", e.Snippet)
	}
	if !e.Transient {
		msg += "; check the provider's base_url (it must point at the API itself) and any proxy in between"
	}
	return msg
}

// streamTimeouts resolves cfg's timeouts: 0 means the default, a negative
// value turns the timeout off.
func streamTimeouts(cfg Config) (firstByte, idle time.Duration) {
	pick := func(v, def time.Duration) time.Duration {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return pick(cfg.FirstByteTimeout, DefaultFirstByteTimeout), pick(cfg.IdleTimeout, DefaultIdleTimeout)
}

type streamingKey struct{}

// Streaming marks ctx as a streamed model call, which the watch transport
// guards; other calls (model lists) pass through untouched.
func Streaming(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamingKey{}, true)
}

// watchTransport enforces the stream timeouts and checks that a 200
// answer to a streaming call is an event stream. The SDKs only see our
// errors: a stalled read returns *StallError, never context.Canceled,
// which the agent loop would take for the user's interrupt.
type watchTransport struct {
	base            http.RoundTripper
	firstByte, idle time.Duration
}

func (t *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Context().Value(streamingKey{}) == nil || (t.firstByte <= 0 && t.idle <= 0) {
		return t.base.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{cancel: cancel, idle: t.idle}
	w.arm("first byte", t.firstByte)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.stop()
		if serr := w.failure(); serr != nil {
			return nil, serr
		}
		return nil, err
	}
	body := &watchedBody{rc: resp.Body, w: w}
	resp.Body = body
	if resp.StatusCode == http.StatusOK && !isEventStream(resp.Header.Get("Content-Type")) {
		if cerr := checkContent(resp, body); cerr != nil {
			return nil, cerr
		}
	}
	return resp, nil
}

func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// checkContent reads the start of a 200 body that does not say it is an
// event stream. A body that still looks like one (some servers omit the
// header) is put back; anything else becomes a *ContentError.
func checkContent(resp *http.Response, body *watchedBody) error {
	head, err := io.ReadAll(io.LimitReader(body, 2048))
	if serr := body.w.failure(); serr != nil {
		body.Close()
		return serr
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(trimmed, []byte(p)) {
			resp.Body = &prefixedBody{r: io.MultiReader(bytes.NewReader(head), body), c: body}
			return nil
		}
	}
	body.Close()
	if err != nil && len(head) == 0 {
		return err
	}
	snippet := strings.Join(strings.Fields(string(head)), " ")
	if len(snippet) > 200 {
		snippet = snippet[:200] + "…"
	}
	return &ContentError{ContentType: resp.Header.Get("Content-Type"), Snippet: snippet, Transient: transientBody(snippet)}
}

// transientBody: gateway pages and error types that say the service, not
// the request, failed.
func transientBody(s string) bool {
	for _, w := range []string{"502 Bad Gateway", "503 Service", "504 Gateway", "overloaded_error", `"api_error"`, "rate_limit", "server_error"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

type prefixedBody struct {
	r io.Reader
	c io.Closer
}

func (b *prefixedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *prefixedBody) Close() error               { return b.c.Close() }

// watchdog cancels the request when its timer runs out and remembers why.
type watchdog struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	timer    *time.Timer
	idle     time.Duration
	phase    string
	timeout  time.Duration
	pings    int
	progress bool
	err      *StallError
	stopped  bool
}

// arm (re)starts the timer for phase; d <= 0 leaves it off.
func (w *watchdog) arm(phase string, d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.err != nil {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.phase, w.timeout = phase, d
	if d > 0 {
		w.timer = time.AfterFunc(d, w.fire)
	}
}

func (w *watchdog) fire() {
	w.mu.Lock()
	if w.stopped || w.err != nil {
		w.mu.Unlock()
		return
	}
	w.err = &StallError{Phase: w.phase, Limit: w.timeout, Pings: w.pings}
	w.mu.Unlock()
	w.cancel()
}

// sawProgress restarts the clock on the idle timeout; pingsAfter came
// after the progress.
func (w *watchdog) sawProgress(pingsAfter int) {
	w.mu.Lock()
	w.progress, w.pings = true, pingsAfter
	w.mu.Unlock()
	w.arm("idle", w.idle)
}

func (w *watchdog) sawPings(n int) {
	w.mu.Lock()
	w.pings += n
	w.mu.Unlock()
}

func (w *watchdog) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	return w.err
}

func (w *watchdog) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel()
}

// watchedBody tells progress from keep-alives as the SDK reads: a data line
// of any event but a ping is progress; comments (": keep-alive"), event
// names, blank lines and ping events are not. A body that is not an event
// stream (a JSON error) counts every byte.
type watchedBody struct {
	rc    io.ReadCloser
	w     *watchdog
	line  []byte // the current line's first bytes
	event string // the current event's name
}

// linePrefix is enough of a line to see its field and a ping's type.
const linePrefix = 48

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	progress, pings := false, 0 // pings: since the chunk's last progress
	for _, c := range p[:n] {
		if c != '\n' {
			if len(b.line) < linePrefix {
				b.line = append(b.line, c)
			}
			continue
		}
		switch b.classify() {
		case lineProgress:
			progress, pings = true, 0
		case linePing:
			pings++
		}
		b.line = b.line[:0]
	}
	switch {
	case progress:
		b.w.sawProgress(pings)
	case pings > 0:
		b.w.sawPings(pings)
	}
	if serr := b.w.failure(); serr != nil {
		return n, serr
	}
	return n, err
}

type lineKind int

const (
	lineOther lineKind = iota
	lineProgress
	linePing
)

func (b *watchedBody) classify() lineKind {
	line := strings.TrimRight(string(b.line), "\r")
	switch {
	case line == "":
		b.event = ""
		return lineOther
	case strings.HasPrefix(line, ":"):
		return linePing
	case strings.HasPrefix(line, "event:"):
		b.event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		return lineOther
	case strings.HasPrefix(line, "data:"):
		data := strings.ReplaceAll(strings.TrimPrefix(line, "data:"), " ", "")
		if b.event == "ping" || strings.HasPrefix(data, `{"type":"ping"`) {
			return linePing
		}
		return lineProgress
	case strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
		return lineOther
	}
	return lineProgress // not SSE (an error body): any content is progress
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.rc.Close()
}

// classifyWatch maps the watch transport's errors, whatever the SDK
// wrapped around them; nil for any other error.
func classifyWatch(name string, err error) *Error {
	var se *StallError
	if errors.As(err, &se) {
		return &Error{Provider: name, Message: se.Error(), Retryable: true, Cause: err}
	}
	var ce *ContentError
	if errors.As(err, &ce) {
		return &Error{Provider: name, Message: Shorten(ce.Error()), Retryable: ce.Transient, Cause: err}
	}
	return nil
}
