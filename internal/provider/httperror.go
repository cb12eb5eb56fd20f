package provider

import (
	"cmp"
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
