package provider

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func readAll(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	var got []string
	err := ReadEvents(r, func(data []byte) error {
		got = append(got, string(data))
		return nil
	})
	return got, err
}

// The event framing is the SSE format's, however the body is split
// across reads.
func TestReadEventsFraming(t *testing.T) {
	long := strings.Repeat("x", 70<<10) // past the scanner's first buffer
	body := ": keep-alive\n\n" +
		"event: a\ndata: {\"n\":1}\n\n" +
		"data: first\r\ndata:second\r\n\r\n" +
		"id: 7\nretry: 100\n\n" +
		"data: " + long + "\n\n" +
		"data: [DONE]\n\n" +
		"data: last without its blank line\n"
	want := []string{`{"n":1}`, "first\nsecond", long, "last without its blank line"}
	for name, r := range map[string]func() io.Reader{
		"whole":        func() io.Reader { return strings.NewReader(body) },
		"one byte":     func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
		"half at once": func() io.Reader { return iotest.HalfReader(strings.NewReader(body)) },
	} {
		got, err := readAll(t, r())
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: got %d events %.80q (err %v), want %d", name, len(got), got, err, len(want))
		}
	}
}

// A body that ends inside a line lost the rest of that event: it is not
// delivered, so the caller sees an incomplete stream, not a broken event.
func TestReadEventsDropsCutEvent(t *testing.T) {
	got, err := readAll(t, strings.NewReader("data: {\"a\":1}\n\ndata: {\"type\":\"resp"))
	if err != nil || !slices.Equal(got, []string{`{"a":1}`}) {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestReadEventsErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAll(t, io.MultiReader(strings.NewReader("data: 1\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error: %v", err)
	}
	n := 0
	err = ReadEvents(strings.NewReader("data: 1\n\ndata: 2\n\n"), func([]byte) error { n++; return boom })
	if !errors.Is(err, boom) || n != 1 {
		t.Errorf("fn error: %v after %d events", err, n)
	}
}

func TestStatusError(t *testing.T) {
	resp := func(code int, body string, h http.Header) *http.Response {
		return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body))}
	}
	cases := []struct {
		resp            *http.Response
		msg             string
		auth, retryable bool
		after           time.Duration
	}{
		{resp(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, nil), "Incorrect API key provided", true, false, 0},
		{resp(403, `{"error":"forbidden here"}`, nil), "forbidden here", true, false, 0},
		{resp(429, `{"error":{"message":"Rate limit reached"}}`, http.Header{"Retry-After": {"3"}}), "Rate limit reached", false, true, 3 * time.Second},
		{resp(400, `{"object":"error","message":"maximum context length is 8192 tokens"}`, nil), "maximum context length is 8192 tokens", false, false, 0},
		{resp(502, `<html>bad gateway</html>`, nil), "Bad Gateway", false, true, 0},
	}
	for _, c := range cases {
		e := StatusError("p", c.resp)
		if e.Status != c.resp.StatusCode || e.Message != c.msg || e.Auth != c.auth || e.Retryable != c.retryable || e.RetryAfter != c.after {
			t.Errorf("%d: got %+v", c.resp.StatusCode, e)
		}
	}
}
