package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

func SimpleRequest(model string) provider.Request {
	return provider.Request{Model: model, MaxTokens: 100, Messages: []message.Message{
		{ID: "u", Role: message.User, Content: []message.Block{message.TextBlock("hi")}},
	}}
}

func Serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// okAnthropic answers with a minimal complete stream and records headers.
func OKAnthropic(t *testing.T, got *http.Header, body *[]byte) string {
	return Serve(t, func(w http.ResponseWriter, r *http.Request) {
		*got = r.Header.Clone()
		*body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, AnthropicJSONToSSEString(`{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`))
	})
}

func AnthropicJSONToSSEString(s string) string { out, _ := AnthropicJSONToSSE(s); return out }

// WeatherTool is the tool the recorded tool-call conversations offer.
var WeatherTool = provider.ToolSpec{Name: "weather", Description: "Get weather information for a location",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}

// MessageText joins the text blocks of bs.
func MessageText(bs []message.Block) string {
	var s string
	for _, b := range bs {
		if b.Type == message.Text {
			s += b.Text
		}
	}
	return s
}
