package openai

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"charm.land/fantasy"
	oai "github.com/openai/openai-go/v3"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/responses"
)

// classify is the adapter's provider.Classifier: the OpenAI SDK's API
// errors fantasy wraps, then fantasy's own.
func classify(out *provider.Error, err error) bool {
	var oe *oai.Error
	if errors.As(err, &oe) {
		var found string
		var pe *fantasy.ProviderError
		if errors.As(err, &pe) {
			found = fantasyBodyMessage(pe)
		}
		responses.ClassifyAPIError(out, oe, found)
		return true
	}
	var pe *fantasy.ProviderError
	if !errors.As(err, &pe) {
		return false
	}
	out.Status = pe.StatusCode
	if out.Status >= 200 && out.Status < 300 {
		// An error event inside a stream whose headers said 200: the
		// HTTP status says nothing about the failure.
		out.Status = 0
	}
	out.Message = providerMessage(pe)
	out.Auth = pe.AuthError || pe.StatusCode == http.StatusUnauthorized || pe.StatusCode == http.StatusForbidden
	out.Retryable = !out.Auth && (pe.IsRetryable() || provider.Transient(pe.Cause))
	out.RetryAfter = provider.RetryAfter(pe.ResponseHeaders, time.Now())
	return true
}

// providerMessage extracts the provider's own error message from a fantasy
// error, falling back to fantasy's summary.
func providerMessage(pe *fantasy.ProviderError) string {
	if msg := fantasyBodyMessage(pe); msg != "" {
		return provider.Shorten(msg)
	}
	msg := pe.Message
	if msg == "" {
		msg = pe.Title
	}
	if msg == "" && pe.StatusCode != 0 {
		msg = http.StatusText(pe.StatusCode)
	}
	return provider.Shorten(msg)
}

// fantasyBodyMessage is the provider's message from the response body
// fantasy kept, or from the JSON its SDK message ends with
// (`POST "url": 429 Too Many Requests {json}`); "" when neither has one.
func fantasyBodyMessage(pe *fantasy.ProviderError) string {
	if msg := provider.BodyMessage(pe.ResponseBody); msg != "" {
		return msg
	}
	if i := strings.IndexByte(pe.Message, '{'); i >= 0 {
		return provider.BodyMessage([]byte(pe.Message[i:]))
	}
	return ""
}
