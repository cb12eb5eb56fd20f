package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/tandem-agent/tandem/internal/trust"
)

// maxBody caps every request body: prompts and settings are small, and an
// unbounded body is an easy way to exhaust memory.
const maxBody = 1 << 20

// apiError is what every failing request gets, as
// {"error": {"code": "...", "message": "..."}}. Messages are written for
// people and never carry stack traces or keys.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Trust, on folder_not_trusted, names the folder and the settings
	// that need trust, so a client can ask the user and retry.
	Trust *trust.UntrustedError `json:"trust,omitempty"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// openError answers a session that could not be opened: an untrusted
// folder is 403 folder_not_trusted with the findings, a configuration
// problem (bad file, unknown model) is 400, anything else status.
func openError(err error, status int, format string) *apiError {
	var ue *trust.UntrustedError
	if errors.As(err, &ue) {
		e := errf(http.StatusForbidden, "folder_not_trusted", "%v", ue)
		e.Trust = ue
		return e
	}
	return errf(status, "open_failed", format, err)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.Status, map[string]*apiError{"error": e})
}

// decodeBody reads a JSON body of at most maxBody bytes into v. Unknown
// fields are refused so that a misspelt option is not silently ignored.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) *apiError {
	return decodeBodyMax(w, r, v, maxBody)
}

// decodeBodyMax is decodeBody with its own bound, for the one body that
// may carry images (a message).
func decodeBodyMax(w http.ResponseWriter, r *http.Request, v any, limit int64) *apiError {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return errf(http.StatusUnsupportedMediaType, "unsupported_media_type",
				"send the body as JSON with Content-Type: application/json (got %q)", ct)
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return errf(http.StatusRequestEntityTooLarge, "body_too_large",
				"request body is larger than %d bytes", tooBig.Limit)
		case errors.Is(err, io.EOF):
			return errf(http.StatusBadRequest, "empty_body", "request body is empty: send a JSON object")
		default:
			return errf(http.StatusBadRequest, "bad_json", "request body is not valid JSON for this endpoint: %s",
				strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if dec.More() {
		return errf(http.StatusBadRequest, "bad_json", "request body holds more than one JSON value")
	}
	return nil
}

// methods dispatches on the request method and answers others with a JSON
// 405 (the standard mux would answer in plain text).
type methods map[string]http.HandlerFunc

func (m methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := m[r.Method]; ok {
		h(w, r)
		return
	}
	var allow []string
	for k := range m {
		allow = append(allow, k)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, errf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed on %s", r.Method, r.URL.Path))
}
