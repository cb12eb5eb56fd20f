package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openai/openai-go/v3"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"charm.land/fantasy"
	"github.com/anthropics/anthropic-sdk-go/v2"
)

// maxMessage bounds the provider message kept in an Error: it is shown to
// users and stored in events, not a place for whole response bodies.
const maxMessage = 500

// errIncompleteStream reports a stream that ended (the connection closed
// cleanly) before the response was complete; a fresh attempt may finish.
var errIncompleteStream = errors.New("stream ended before the response was complete")

// mapError classifies err. Cancellation wins over everything: when ctx is
// done the caller asked to stop, and retrying would be wrong.
func mapError(ctx context.Context, name string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", name, ctxErr)
	}
	if e := classifyWatch(name, err); e != nil {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return classify(name, err)
}

func classify(name string, err error) *Error {
	if pe, ok := AsError(err); ok {
		return pe // already classified (an error event the adapter read)
	}
	out := &Error{Provider: name, Cause: err}
	var oe *openai.Error
	if errors.As(err, &oe) {
		classifyOpenAI(out, oe, err)
		return out
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		classifyAnthropic(out, ae)
		return out
	}
	var pe *fantasy.ProviderError
	if errors.As(err, &pe) {
		out.Status = pe.StatusCode
		if out.Status >= 200 && out.Status < 300 {
			// An error event inside a stream whose headers said 200: the
			// HTTP status says nothing about the failure.
			out.Status = 0
		}
		out.Message = providerMessage(pe)
		out.Auth = pe.AuthError || pe.StatusCode == http.StatusUnauthorized || pe.StatusCode == http.StatusForbidden
		out.Retryable = !out.Auth && (pe.IsRetryable() || transient(pe.Cause))
		out.RetryAfter = retryAfter(pe.ResponseHeaders, time.Now())
		return out
	}
	out.Message = shorten(err.Error())
	out.Retryable = transient(err)
	return out
}

// anthropicRetryable are the error types that say the service, not the
// request, failed; mid-stream they come with the stream's HTTP 200.
var anthropicRetryable = map[string]bool{
	"overloaded_error": true, "api_error": true, "rate_limit_error": true, "timeout_error": true,
}

// classifyAnthropic fills out from the SDK's API error: an error response,
// or an error event inside a stream.
func classifyAnthropic(out *Error, ae *anthropic.Error) {
	out.Status = ae.StatusCode
	if out.Status >= 200 && out.Status < 300 {
		// An error event inside a stream whose headers said 200.
		out.Status = 0
	}
	typ := string(ae.Type())
	out.Message = shorten(ae.Message)
	if out.Message == "" {
		out.Message = shorten(bodyMessage([]byte(ae.RawJSON())))
	}
	if out.Message == "" {
		out.Message = shorten(ae.RawJSON())
	}
	if out.Message == "" {
		out.Message = cmp.Or(typ, http.StatusText(out.Status))
	}
	out.Auth = out.Status == http.StatusUnauthorized || out.Status == http.StatusForbidden ||
		typ == "authentication_error" || typ == "permission_error"
	out.Retryable = !out.Auth && (retryableStatus(out.Status) || anthropicRetryable[typ])
	if ae.Response != nil {
		out.RetryAfter = retryAfter(headerMap(ae.Response.Header), time.Now())
	}
}

// classifyOpenAI fills out from the OpenAI SDK's API error (the Responses
// adapter's HTTP failures).
func classifyOpenAI(out *Error, oe *openai.Error, err error) {
	out.Status = oe.StatusCode
	out.Message = shorten(cmp.Or(oe.Message, bodyMessage([]byte(oe.RawJSON())), jsonString(oe.RawJSON()),
		openAIBodyMessage(oe, err), http.StatusText(oe.StatusCode)))
	out.Auth = out.Status == http.StatusUnauthorized || out.Status == http.StatusForbidden
	out.Retryable = !out.Auth && retryableStatus(out.Status)
	if oe.Response != nil {
		out.RetryAfter = retryAfter(headerMap(oe.Response.Header), time.Now())
	}
}

// jsonString is raw when it is a JSON string ({"error": "..."}, as LM
// Studio answers), else "".
func jsonString(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// openAIBodyMessage reads the message from the whole error body, for
// OpenAI-compatible servers whose errors have no "error" object (vLLM's
// {"object": "error", "message": ...}); the SDK only decodes "error".
func openAIBodyMessage(oe *openai.Error, err error) string {
	var pe *fantasy.ProviderError
	if errors.As(err, &pe) {
		if msg := fantasyBodyMessage(pe); msg != "" {
			return msg
		}
	}
	if oe.Response == nil || oe.Response.Body == nil {
		return ""
	}
	body, rerr := io.ReadAll(io.LimitReader(oe.Response.Body, 64<<10))
	oe.Response.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return ""
	}
	return bodyMessage(body)
}

// retryableStatus: timeouts, conflicts (Anthropic uses 409 for transient
// lock contention), rate limits, server errors and 529 overloaded.
func retryableStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict ||
		s == http.StatusTooManyRequests || s >= 500
}

func headerMap(h http.Header) map[string]string {
	out := make(map[string]string, 2)
	for _, k := range []string{"Retry-After-Ms", "Retry-After"} {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// transient reports dropped connections and other transport failures that a
// fresh attempt may get past.
func transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, errIncompleteStream) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if fantasy.IsTransportError(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// providerMessage extracts the provider's own error message from a fantasy
// error, falling back to fantasy's summary.
func providerMessage(pe *fantasy.ProviderError) string {
	if msg := fantasyBodyMessage(pe); msg != "" {
		return shorten(msg)
	}
	msg := pe.Message
	if msg == "" {
		msg = pe.Title
	}
	if msg == "" && pe.StatusCode != 0 {
		msg = http.StatusText(pe.StatusCode)
	}
	return shorten(msg)
}

// fantasyBodyMessage is the provider's message from the response body
// fantasy kept, or from the JSON its SDK message ends with
// (`POST "url": 429 Too Many Requests {json}`); "" when neither has one.
func fantasyBodyMessage(pe *fantasy.ProviderError) string {
	if msg := bodyMessage(pe.ResponseBody); msg != "" {
		return msg
	}
	if i := strings.IndexByte(pe.Message, '{'); i >= 0 {
		return bodyMessage([]byte(pe.Message[i:]))
	}
	return ""
}

// bodyMessage reads error.message (Anthropic, OpenAI) or message from a
// response body. fantasy stores the body either bare or as a full HTTP dump.
func bodyMessage(body []byte) string {
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

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		return s[:maxMessage] + "…"
	}
	return s
}

// retryAfter reads retry-after-ms (Anthropic, OpenAI) or retry-after
// (seconds or an HTTP date) from response headers.
func retryAfter(headers map[string]string, now time.Time) time.Duration {
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
