package bedrock

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// sseBody reads AWS event-stream frames and yields the server-sent events
// the Messages API would have sent: each "chunk" event carries one
// Messages event as base64 JSON; exceptions become error events.
type sseBody struct {
	src     io.ReadCloser
	dec     *eventstream.Decoder
	payload []byte
	buf     bytes.Buffer
	err     error
}

func newSSEBody(src io.ReadCloser) *sseBody {
	return &sseBody{src: src, dec: eventstream.NewDecoder()}
}

func (b *sseBody) Read(p []byte) (int, error) {
	// Events decoded before a failure are delivered before the failure.
	for b.buf.Len() == 0 {
		if b.err != nil {
			return 0, b.err
		}
		msg, err := b.dec.Decode(b.src, b.payload[:0])
		if err != nil {
			b.err = err // io.EOF at a frame boundary is the stream's end
			continue
		}
		b.payload = msg.Payload
		b.err = b.translate(msg)
	}
	return b.buf.Read(p)
}

func (b *sseBody) Close() error { return b.src.Close() }

func header(msg eventstream.Message, name string) string {
	if v := msg.Headers.Get(name); v != nil {
		return v.String()
	}
	return ""
}

func (b *sseBody) translate(msg eventstream.Message) error {
	switch header(msg, ":message-type") {
	case "event":
		if header(msg, ":event-type") != "chunk" {
			return nil // Bedrock sends nothing else today; ignore what is new
		}
		var chunk struct {
			Bytes string `json:"bytes"`
		}
		if err := json.Unmarshal(msg.Payload, &chunk); err != nil {
			return fmt.Errorf("bedrock: bad stream chunk: %w", err)
		}
		data, err := base64.StdEncoding.DecodeString(chunk.Bytes)
		if err != nil {
			return fmt.Errorf("bedrock: bad stream chunk: %w", err)
		}
		var ev struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(data, &ev)
		b.emit(ev.Type, data)
	case "exception":
		var e struct {
			Message string `json:"message"`
			Upper   string `json:"Message"`
		}
		_ = json.Unmarshal(msg.Payload, &e)
		code := header(msg, ":exception-type")
		b.emit("error", errorJSON(errorType(code, 0), code+": "+cmp.Or(e.Message, e.Upper)))
	case "error":
		code := header(msg, ":error-code")
		b.emit("error", errorJSON(errorType(code, 0), code+": "+header(msg, ":error-message")))
	default:
		return fmt.Errorf("bedrock: stream frame without a known :message-type")
	}
	return nil
}

func (b *sseBody) emit(event string, data []byte) {
	b.buf.WriteString("event: ")
	b.buf.WriteString(event)
	b.buf.WriteString("\ndata: ")
	// JSON from json.Marshal or the API holds no raw newlines; keep the
	// framing valid even if one did.
	b.buf.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\ndata: ")))
	b.buf.WriteString("\n\n")
}
