package responses

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/tandem-agent/tandem/internal/provider"
)

// classify is the adapter's provider.Classifier: the SDK's API errors.
func classify(out *provider.Error, err error) bool {
	var oe *openai.Error
	if !errors.As(err, &oe) {
		return false
	}
	ClassifyAPIError(out, oe, "")
	return true
}

// ClassifyAPIError fills out from the OpenAI SDK's API error (the Responses
// adapter's HTTP failures, and the Chat Completions adapter's under
// fantasy's error). found is the server's message the caller found
// elsewhere in the chain (fantasy's copy of the body), or "".
func ClassifyAPIError(out *provider.Error, oe *openai.Error, found string) {
	out.Status = oe.StatusCode
	body := found
	if body == "" {
		body = responseBodyMessage(oe)
	}
	out.Message = provider.Shorten(cmp.Or(oe.Message, provider.BodyMessage([]byte(oe.RawJSON())), jsonString(oe.RawJSON()),
		body, http.StatusText(oe.StatusCode)))
	out.Auth = out.Status == http.StatusUnauthorized || out.Status == http.StatusForbidden
	out.Retryable = !out.Auth && provider.RetryableStatus(out.Status)
	if oe.Response != nil {
		out.RetryAfter = provider.RetryAfter(provider.HeaderMap(oe.Response.Header), time.Now())
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

// responseBodyMessage reads the message from the whole error body, for
// OpenAI-compatible servers whose errors have no "error" object (vLLM's
// {"object": "error", "message": ...}); the SDK only decodes "error".
func responseBodyMessage(oe *openai.Error) string {
	if oe.Response == nil || oe.Response.Body == nil {
		return ""
	}
	body, rerr := io.ReadAll(io.LimitReader(oe.Response.Body, 64<<10))
	oe.Response.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return ""
	}
	return provider.BodyMessage(body)
}
