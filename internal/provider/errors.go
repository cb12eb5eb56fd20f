package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http2"
)

// MaxMessage bounds the provider message kept in an Error: it is shown to
// users and stored in events, not a place for whole response bodies.
const MaxMessage = 500

// ErrIncompleteStream reports a stream that ended (the connection closed
// cleanly) before the response was complete; a fresh attempt may finish.
var ErrIncompleteStream = errors.New("stream ended before the response was complete")

// MapError classifies err for the provider called name, with sdk (may be
// nil) for the adapter's SDK errors. Cancellation wins over everything: when
// ctx is done the caller asked to stop, and retrying would be wrong.
func MapError(ctx context.Context, name string, err error, sdk Classifier) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", name, ctxErr)
	}
	if e := classifyWatch(name, err); e != nil {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return classify(name, err, sdk)
}

// Classifier fills out from the error types of one SDK and reports whether
// it knew err; an adapter passes its own to MapError.
type Classifier func(out *Error, err error) bool

func classify(name string, err error, sdk Classifier) *Error {
	if pe, ok := AsError(err); ok {
		return pe // already classified (an error event the adapter read)
	}
	out := &Error{Provider: name, Cause: err}
	if sdk != nil && sdk(out, err) {
		return out
	}
	out.Message = Shorten(err.Error())
	out.Retryable = Transient(err)
	return out
}

// RetryableStatus: timeouts, conflicts (Anthropic uses 409 for transient
// lock contention), rate limits, server errors and 529 overloaded.
func RetryableStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict ||
		s == http.StatusTooManyRequests || s >= 500
}

// HeaderMap keeps the Retry-After headers of h, for RetryAfter.
func HeaderMap(h http.Header) map[string]string {
	out := make(map[string]string, 2)
	for _, k := range []string{"Retry-After-Ms", "Retry-After"} {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// Transient reports dropped connections and other transport failures that a
// fresh attempt may get past.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrIncompleteStream) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if http2Transport(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// BodyMessage reads error.message (Anthropic, OpenAI) or message from a
// response body, given bare or as a full HTTP dump (headers first).
func BodyMessage(body []byte) string {
	if _, after, ok := bytes.Cut(body, []byte("\r\n\r\n")); ok {
		body = after
	}
	body = bytes.TrimSpace(body)
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	var inner struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(env.Error, &inner) == nil && inner.Message != "" {
		return inner.Message
	}
	var s string
	if json.Unmarshal(env.Error, &s) == nil && s != "" {
		return s
	}
	return env.Message
}

// Shorten trims s to MaxMessage bytes for an Error's Message.
func Shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > MaxMessage {
		return s[:MaxMessage] + "…"
	}
	return s
}

// RetryAfter reads retry-after-ms (Anthropic, OpenAI) or retry-after
// (seconds or an HTTP date) from response headers.
func RetryAfter(headers map[string]string, now time.Time) time.Duration {
	get := func(name string) string {
		for k, v := range headers {
			if strings.EqualFold(k, name) {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	if v := get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := get("retry-after")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// http2Transport reports HTTP/2 stream resets, connection errors and GOAWAY
// frames, which a fresh connection gets past. It matches what
// fantasy.IsTransportError matches, so every adapter retries the same
// transport failures without the core linking fantasy: x/net/http2's types,
// and the message fragments of the stdlib's bundled copy (whose types are
// unexported).
func http2Transport(err error) bool {
	var (
		streamErr http2.StreamError
		connErr   http2.ConnectionError
		//lint:ignore SA1019 x/net's HTTP/2 transport (under fantasy) still returns it, and nothing replaces it to match
		goAwayErr http2.GoAwayError
	)
	if errors.As(err, &streamErr) || errors.As(err, &connErr) || errors.As(err, &goAwayErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "stream error:") || strings.Contains(msg, "connection error:")
}
