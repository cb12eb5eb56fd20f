package responses

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3/responses"

	"github.com/tandem-agent/tandem/internal/provider"
)

// classify is the adapter's provider.Classifier: the SDK's API errors.
func classify(out *provider.Error, err error) bool {
	var oe *responses.Error
	if !errors.As(err, &oe) {
		return false
	}
	classifyAPIError(out, oe)
	return true
}

// classifyAPIError fills out from the SDK's API error (an HTTP failure).
// The responses package's Error is the SDK's own API error type, so the
// SDK's root package (whose initialisation every start of tandem would
// pay) stays unlinked.
func classifyAPIError(out *provider.Error, oe *responses.Error) {
	out.Status = oe.StatusCode
	body := responseBodyMessage(oe)
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
func responseBodyMessage(oe *responses.Error) string {
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
