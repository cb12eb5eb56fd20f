package scripted

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// anthropicErrorType is the error.type the real Anthropic API uses for a
// status, with its usual message.
func anthropicErrorType(status int) (string, string) {
	switch status {
	case 400:
		return "invalid_request_error", "Invalid request"
	case 401:
		return "authentication_error", "invalid x-api-key"
	case 403:
		return "permission_error", "Your API key does not have permission to use the specified resource."
	case 404:
		return "not_found_error", "Not found"
	case 413:
		return "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case 429:
		return "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"
	case 529:
		return "overloaded_error", "Overloaded"
	case 500:
		return "api_error", "Internal server error"
	}
	if status >= 500 {
		return "api_error", "Internal server error"
	}
	return "invalid_request_error", http.StatusText(status)
}

// openAIError is the error object the real OpenAI API uses for a status.
func openAIError(status int) (typ, code, msg string) {
	switch status {
	case 401:
		return "invalid_request_error", "invalid_api_key", "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
	case 404:
		return "invalid_request_error", "unknown_url", "Unknown request URL."
	case 429:
		return "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."
	case 503, 529:
		return "server_error", "", "The engine is currently overloaded, please try again later"
	}
	if status >= 500 {
		return "server_error", "", "The server had an error while processing your request. Sorry about that!"
	}
	return "invalid_request_error", "", http.StatusText(status)
}

// errorBody renders the protocol's error JSON; msg overrides the default
// message when not empty.
func errorBody(proto protocol, status int, msg string) []byte {
	if proto == protoOpenAI {
		typ, code, def := openAIError(status)
		if msg == "" {
			msg = def
		}
		var codeVal any
		if code != "" {
			codeVal = code
		}
		data, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": msg, "type": typ, "param": nil, "code": codeVal,
		}})
		return data
	}
	typ, def := anthropicErrorType(status)
	if msg == "" {
		msg = def
	}
	data, _ := json.Marshal(struct {
		Type      string       `json:"type"`
		Error     anthropicErr `json:"error"`
		RequestID string       `json:"request_id"`
	}{"error", anthropicErr{typ, msg}, newRequestID()})
	return data
}

type anthropicErr struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, proto protocol, status int, body json.RawMessage, msg string) {
	if len(body) == 0 {
		body = errorBody(proto, status, msg)
	}
	w.Header().Set("Content-Type", "application/json")
	setRequestID(w)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeFaultStatus(w http.ResponseWriter, proto protocol, f *Fault) {
	if f.RetryAfter != "" {
		secs, _ := strconv.ParseFloat(f.RetryAfter, 64)
		w.Header().Set("retry-after", f.RetryAfter)
		w.Header().Set("retry-after-ms", strconv.FormatFloat(secs*1000, 'f', -1, 64))
	}
	for k, v := range f.Headers {
		w.Header().Set(k, v)
	}
	if f.ContentType != "" || f.BodyText != "" {
		w.Header().Set("Content-Type", cmp.Or(f.ContentType, "text/plain; charset=utf-8"))
		setRequestID(w)
		w.WriteHeader(f.Status)
		switch {
		case f.BodyText != "":
			_, _ = io.WriteString(w, f.BodyText)
		case len(f.Body) > 0:
			_, _ = w.Write(f.Body)
		default:
			_, _ = w.Write(errorBody(proto, f.Status, ""))
		}
		return
	}
	writeError(w, proto, f.Status, f.Body, "")
}
