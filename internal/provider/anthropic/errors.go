package anthropic

import (
	"cmp"
	"errors"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/tandem-agent/tandem/internal/provider"
)

// classify is the adapter's provider.Classifier: the SDK's API errors.
func classify(out *provider.Error, err error) bool {
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return false
	}
	classifyAnthropic(out, ae)
	return true
}

// anthropicRetryable are the error types that say the service, not the
// request, failed; mid-stream they come with the stream's HTTP 200.
var anthropicRetryable = map[string]bool{
	"overloaded_error": true, "api_error": true, "rate_limit_error": true, "timeout_error": true,
}

// classifyAnthropic fills out from the SDK's API error: an error response,
// or an error event inside a stream.
func classifyAnthropic(out *provider.Error, ae *anthropic.Error) {
	out.Status = ae.StatusCode
	if out.Status >= 200 && out.Status < 300 {
		// An error event inside a stream whose headers said 200.
		out.Status = 0
	}
	typ := string(ae.Type())
	out.Message = provider.Shorten(ae.Message)
	if out.Message == "" {
		out.Message = provider.Shorten(provider.BodyMessage([]byte(ae.RawJSON())))
	}
	if out.Message == "" {
		out.Message = provider.Shorten(ae.RawJSON())
	}
	if out.Message == "" {
		out.Message = cmp.Or(typ, http.StatusText(out.Status))
	}
	out.Auth = out.Status == http.StatusUnauthorized || out.Status == http.StatusForbidden ||
		typ == "authentication_error" || typ == "permission_error"
	out.Retryable = !out.Auth && (provider.RetryableStatus(out.Status) || anthropicRetryable[typ])
	if ae.Response != nil {
		out.RetryAfter = provider.RetryAfter(provider.HeaderMap(ae.Response.Header), time.Now())
	}
}
