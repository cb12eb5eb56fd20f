package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// cloudRoute recognises the Anthropic Messages API as the clouds serve it:
// Vertex AI (.../publishers/anthropic/models/M:streamRawPredict or
// :rawPredict, the model in the path) and Amazon Bedrock
// (.../model/M/invoke-with-response-stream or /invoke, the model in the
// path and streaming by operation). It returns the model, whether the
// call streams (Bedrock only; Vertex keeps "stream" in the body) and which
// cloud it is.
func cloudRoute(path string) (model string, stream, bedrock, ok bool) {
	if i := strings.Index(path, "/publishers/anthropic/models/"); i >= 0 {
		rest := path[i+len("/publishers/anthropic/models/"):]
		m, op, found := strings.Cut(rest, ":")
		if found && (op == "streamRawPredict" || op == "rawPredict") {
			return m, false, false, true
		}
		return "", false, false, false
	}
	if i := strings.LastIndex(path, "/model/"); i >= 0 {
		rest := path[i+len("/model/"):]
		j := strings.LastIndex(rest, "/")
		if j < 0 {
			return "", false, false, false
		}
		m, op := rest[:j], rest[j+1:]
		if u, err := url.PathUnescape(m); err == nil {
			m = u
		}
		switch op {
		case "invoke-with-response-stream":
			return m, true, true, true
		case "invoke":
			return m, false, true, true
		}
	}
	return "", false, false, false
}

// eventStreamWriter re-frames the Anthropic SSE the server writes as
// Bedrock's AWS event stream: each event becomes a "chunk" frame holding
// the event's JSON in base64, and an error event becomes an exception
// frame. Error answers (status >= 400) get Bedrock's error shape: a
// {"message": ...} body and the exception name in X-Amzn-ErrorType.
type eventStreamWriter struct {
	w       http.ResponseWriter
	enc     *eventstream.Encoder
	pending bytes.Buffer
	status  int  // 0 until WriteHeader
	errDone bool // an error answer's body was written
}

func newEventStreamWriter(w http.ResponseWriter) *eventStreamWriter {
	return &eventStreamWriter{w: w, enc: eventstream.NewEncoder()}
}

func (e *eventStreamWriter) Header() http.Header { return e.w.Header() }

// Unwrap lets http.ResponseController reach the connection (faults that
// cut it hijack it).
func (e *eventStreamWriter) Unwrap() http.ResponseWriter { return e.w }

func (e *eventStreamWriter) WriteHeader(status int) {
	e.status = status
	if status < 400 {
		if strings.HasPrefix(e.w.Header().Get("Content-Type"), "text/event-stream") {
			e.w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		}
		e.w.WriteHeader(status)
	}
	// An error answer's header waits for its body, which names the
	// exception.
}

func (e *eventStreamWriter) Write(b []byte) (int, error) {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	if e.status >= 400 {
		if e.errDone {
			return len(b), nil
		}
		return e.writeError(b)
	}
	if !strings.HasPrefix(e.w.Header().Get("Content-Type"), "application/vnd.amazon.eventstream") {
		return e.w.Write(b) // a whole JSON body (InvokeModel) goes as it is
	}
	e.pending.Write(b)
	for {
		data := e.pending.Bytes()
		end := bytes.Index(data, []byte("\n\n"))
		if end < 0 {
			return len(b), nil
		}
		event := append([]byte(nil), data[:end]...)
		e.pending.Next(end + 2)
		if err := e.frame(event); err != nil {
			return 0, err
		}
	}
}

// frame encodes one SSE event ("event: T\ndata: {...}").
func (e *eventStreamWriter) frame(event []byte) error {
	var typ string
	var data []byte
	for _, line := range bytes.Split(event, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("event:")); ok {
			typ = string(bytes.TrimSpace(v))
		} else if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimSpace(v)...)
		}
	}
	if len(data) == 0 {
		return nil // comments and keep-alives: Bedrock sends none
	}
	var msg eventstream.Message
	if typ == "error" {
		var ev struct {
			Error anthropicErr `json:"error"`
		}
		_ = json.Unmarshal(data, &ev)
		msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
		// In the stream the exception names start lower-case.
		name := bedrockException(ev.Error.Type)
		msg.Headers.Set(":exception-type", eventstream.StringValue(strings.ToLower(name[:1])+name[1:]))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Payload, _ = json.Marshal(map[string]string{"message": ev.Error.Message})
	} else {
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		msg.Payload, _ = json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
	}
	return e.enc.Encode(e.w, msg)
}

func (e *eventStreamWriter) writeError(b []byte) (int, error) {
	var ev struct {
		Error anthropicErr `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	name := bedrockException("")
	if json.Unmarshal(b, &ev) == nil && ev.Error.Message != "" {
		msg, name = ev.Error.Message, bedrockException(ev.Error.Type)
	}
	switch e.status {
	case http.StatusTooManyRequests:
		name = "ThrottlingException"
	case http.StatusForbidden, http.StatusUnauthorized:
		name = "AccessDeniedException"
	}
	body, _ := json.Marshal(map[string]string{"message": msg})
	h := e.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-Errortype", name+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	h.Del("Content-Length")
	e.w.WriteHeader(e.status)
	e.errDone = true
	if _, err := e.w.Write(body); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush sends what is framed.
func (e *eventStreamWriter) Flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// bedrockException names the exception Bedrock raises for an Anthropic
// error type.
func bedrockException(typ string) string {
	switch typ {
	case "rate_limit_error":
		return "ThrottlingException"
	case "overloaded_error":
		return "ServiceUnavailableException"
	case "invalid_request_error":
		return "ValidationException"
	case "authentication_error", "permission_error":
		return "AccessDeniedException"
	case "not_found_error":
		return "ResourceNotFoundException"
	case "timeout_error":
		return "ModelTimeoutException"
	}
	return "InternalServerException"
}
