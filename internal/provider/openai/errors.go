package openai

import (
	"cmp"
	"encoding/json"
	"strconv"

	"github.com/tandem-agent/tandem/internal/provider"
)

// transientTypes are error types (or codes) of an error event inside a
// stream that name a passing condition on the server's side: the stream
// answered 200, so no HTTP status says whether to retry.
var transientTypes = map[string]bool{
	"server_error": true, "internal_error": true, "overloaded_error": true, "api_error": true, "rate_limit_error": true,
}

// streamError is the error event data carried inside a 200 stream; raw is
// its "error" field.
func streamError(name string, data, raw json.RawMessage) *provider.Error {
	var e struct {
		Type string          `json:"type"`
		Code json.RawMessage `json:"code"`
	}
	_ = json.Unmarshal(raw, &e)
	code := ""
	if json.Unmarshal(e.Code, &code) != nil {
		code = string(e.Code) // a number (429, 503), or nothing
	}
	retry := transientTypes[cmp.Or(e.Type, code)]
	if n, err := strconv.Atoi(code); err == nil {
		retry = retry || provider.RetryableStatus(n)
	}
	msg := cmp.Or(provider.BodyMessage(data), "received error while streaming: "+string(raw))
	return &provider.Error{Provider: name, Message: provider.Shorten(msg), Retryable: retry}
}
