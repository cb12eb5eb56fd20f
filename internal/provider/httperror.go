package provider

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net/http"
	"time"
)

// StatusError classifies an error answer (a status outside 2xx) of an API
// that reports errors the OpenAI way, for the adapters that are their own
// HTTP clients. The message is the server's own, whatever shape its body
// has: OpenAI's {"error": {"message"}}, LM Studio's {"error": "..."},
// vLLM's {"object": "error", "message"}; it is what tells a context
// overflow apart. 401 and 403 are Auth; Retry-After is kept.
func StatusError(name string, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	out := &Error{Provider: name, Status: resp.StatusCode,
		Message: Shorten(cmp.Or(BodyMessage(body), http.StatusText(resp.StatusCode)))}
	out.Auth = resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
	out.Retryable = !out.Auth && RetryableStatus(resp.StatusCode)
	out.RetryAfter = RetryAfter(HeaderMap(resp.Header), time.Now())
	return out
}

// PostStream posts a JSON body as a streaming call, the way every plain-HTTP
// adapter does: under the stream timeouts (Streaming), asking for
// server-sent events, with the header sets applied in order (the
// adapter's own, the provider's configured headers, the request's), so a
// later set overrides an earlier one. A transport failure comes back
// mapped; the caller reads the status.
func PostStream(ctx context.Context, client *http.Client, name, url string, body []byte, headers ...map[string]string) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(Streaming(ctx), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Provider: name, Message: "build request: " + err.Error(), Cause: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	for _, h := range headers {
		for k, v := range h {
			hreq.Header.Set(k, v)
		}
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, MapError(ctx, name, err, nil)
	}
	return resp, nil
}
