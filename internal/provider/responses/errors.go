package responses

import (
	"cmp"
	"encoding/json"
	"strconv"

	"github.com/tandem-agent/tandem/internal/provider"
)

// transientCode reports the error codes (or, without one, types) of an
// error inside a 200 stream that name a passing condition on the server's
// side: OpenAI's, and the types proxies in front of other backends pass on.
func transientCode(code string) bool {
	switch code {
	case "", "server_error", "rate_limit_exceeded", "server_is_overloaded", "slow_down",
		"internal_error", "rate_limit_error", "overloaded_error", "api_error":
		return true
	}
	return false
}

// streamError is an error the API reported inside a 200 stream (an error
// event, or a failed response); server trouble and rate limits are worth
// another attempt, as is an error that names no code at all. A numeric
// code is an HTTP status.
func streamError(name, code, msg string) *provider.Error {
	retry := transientCode(code)
	if n, err := strconv.Atoi(code); err == nil {
		retry = provider.RetryableStatus(n)
	}
	return &provider.Error{Provider: name, Message: provider.Shorten(cmp.Or(msg, code, "error event")), Retryable: retry}
}

// apiError is the error object of an error event or a failed response.
// Its code is a string on OpenAI's servers, but a number or null on some
// compatible ones.
type apiError struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func (e apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return cmp.Or(s, e.Type)
	}
	if len(e.Code) > 0 && string(e.Code) != "null" {
		return string(e.Code)
	}
	return e.Type
}

// eventError reads an error event. The API documents its fields at the
// top ({"type": "error", "code", "message"}); OpenAI's servers, and
// proxies in front of Chat Completions-style backends, also send them in
// an "error" object, which wins when it says more.
func eventError(name string, ev *responsesEvent) *provider.Error {
	e := apiError{Code: ev.Code, Message: ev.Message}
	var inner apiError
	if len(ev.Error) > 0 && json.Unmarshal(ev.Error, &inner) == nil && (inner.Message != "" || inner.code() != "") {
		e = inner
	} else if len(ev.Error) > 0 && e.Message == "" {
		var s string // {"error": "..."}
		if json.Unmarshal(ev.Error, &s) == nil {
			e.Message = s
		}
	}
	return streamError(name, e.code(), e.Message)
}
