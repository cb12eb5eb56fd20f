package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

const okStream = `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"

// sentBody makes one call of kind with req and returns the decoded body.
func sentBody(t *testing.T, kind string, req provider.Request) map[string]any {
	t.Helper()
	url, srv := sseServer(t, okStream)
	p, err := New(provider.Config{Name: "p", Kind: kind, BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(srv.Body(0)), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// Reasoning models refuse max_tokens; the others get it, as before.
func TestMaxTokensField(t *testing.T) {
	for _, c := range []struct{ kind, model, field string }{
		{provider.KindOpenAI, "gpt-4o", "max_tokens"},
		{provider.KindOpenAI, "gpt-5-mini", "max_completion_tokens"},
		{provider.KindOpenAI, "o4-mini", "max_completion_tokens"},
		{provider.KindOpenAICompatible, "openai/gpt-oss-20b", "max_completion_tokens"},
		{provider.KindOpenAICompatible, "kimi-k2", "max_tokens"},
	} {
		body := sentBody(t, c.kind, providertest.SimpleRequest(c.model))
		_, tokens := body["max_tokens"]
		_, completion := body["max_completion_tokens"]
		if body[c.field] != float64(100) || tokens == completion {
			t.Errorf("%s: body %v, want %s", c.model, body, c.field)
		}
		if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true {
			t.Errorf("%s: not streamed with usage: %v", c.model, body)
		}
	}
}

func TestReasoningEffort(t *testing.T) {
	req := providertest.SimpleRequest("gpt-5")
	req.Effort = "high"
	if body := sentBody(t, provider.KindOpenAI, req); body["reasoning_effort"] != "high" {
		t.Errorf("body %v", body)
	}
	req.Effort = "extreme"
	p, _ := New(provider.Config{Name: "p", Kind: provider.KindOpenAI, BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"})
	_, err := p.Stream(context.Background(), req, nil)
	if pe, ok := provider.AsError(err); !ok || !strings.Contains(pe.Message, `reasoning effort "extreme"`) || pe.Retryable {
		t.Errorf("unknown effort: %v", err)
	}
}

// Tools go out as function definitions with tool_choice auto; the schema
// is completed to an object.
func TestToolsSent(t *testing.T) {
	req := providertest.SimpleRequest("gpt-4o")
	req.Tools = []provider.ToolSpec{providertest.WeatherTool, {Name: "now"}}
	body := sentBody(t, provider.KindOpenAI, req)
	tools, _ := json.Marshal(body["tools"])
	want := `[{"function":{"description":"Get weather information for a location","name":"weather","parameters":{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"},"strict":false},"type":"function"},` +
		`{"function":{"description":"","name":"now","parameters":{"properties":{},"type":"object"},"strict":false},"type":"function"}]`
	if string(tools) != want || body["tool_choice"] != "auto" {
		t.Errorf("tools %s tool_choice %v", tools, body["tool_choice"])
	}
	if _, ok := sentBody(t, provider.KindOpenAI, providertest.SimpleRequest("gpt-4o"))["tool_choice"]; ok {
		t.Error("tool_choice without tools")
	}
}

// The conversation as Chat Completions wants it: assistant texts joined,
// tool messages right after the tool calls (images of results following in
// the user message, since tool messages carry text only), empty results
// said to be empty, broken tool input replaced.
func TestConversationConverted(t *testing.T) {
	img := message.Block{Type: message.Image, MediaType: "image/jpeg", ImageData: "aGVsbG8="}
	req := provider.Request{Model: "gpt-4o", System: []string{"be brief", "  ", "use tools"}, Messages: []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("look")}},
		{Role: message.Assistant, Content: []message.Block{message.TextBlock("First."), {Type: message.Thinking, Text: "t", Provider: "p"}, message.TextBlock("Second."),
			{Type: message.ToolUse, ID: "a", Name: "shot", Input: json.RawMessage(`{"x":1}`)},
			{Type: message.ToolUse, ID: "b", Name: "run", Input: json.RawMessage(`{broken`)},
			{Type: message.ToolUse, ID: "c", Name: "run"}}},
		{Role: message.User, Content: []message.Block{
			{Type: message.ToolResult, ToolUseID: "a", Content: []message.Block{img}},
			{Type: message.ToolResult, ToolUseID: "b"},
			{Type: message.ToolResult, ToolUseID: "c", IsError: true},
			message.TextBlock("go on")}},
		{Role: message.Assistant, Content: []message.Block{{Type: message.Thinking, Text: "only thinking", Provider: "p"}}},
	}}
	got, _ := json.Marshal(sentBody(t, provider.KindOpenAI, req)["messages"])
	want := `[{"content":"be brief\nuse tools","role":"system"},{"content":"look","role":"user"},` +
		`{"content":"First.\n\nSecond.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"x\":1}","name":"shot"},"id":"a","type":"function"},` +
		`{"function":{"arguments":"{}","name":"run"},"id":"b","type":"function"},{"function":{"arguments":"{}","name":"run"},"id":"c","type":"function"}]},` +
		`{"content":"The tool returned image/jpeg content; see the following user message.","role":"tool","tool_call_id":"a"},` +
		`{"content":"(no output)","role":"tool","tool_call_id":"b"},{"content":"error","role":"tool","tool_call_id":"c"},` +
		`{"content":[{"image_url":{"url":"data:image/jpeg;base64,aGVsbG8="},"type":"image_url"},{"text":"go on","type":"text"}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
}

// A user message with text and an image: the recorded request, byte for
// byte once decoded.
func TestImageRecorded(t *testing.T) {
	rel := "TestImageUploadAgentStreaming/openai-gpt-5-stream.yaml"
	c := providertest.LoadCassette(t, rel)
	var recorded struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &recorded); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(recorded.Messages[1].Content, &parts); err != nil || len(parts) != 2 {
		t.Fatalf("recorded user message: %s %v", recorded.Messages[1].Content, err)
	}
	data, ok := strings.CutPrefix(parts[1].ImageURL.URL, "data:image/png;base64,")
	if !ok {
		t.Fatalf("recorded image %.40s", parts[1].ImageURL.URL)
	}
	rs := providertest.NewReplayServer(t, c, nil)
	p, _ := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI, BaseURL: rs.URL + "/v1", APIKey: "k"})
	resp, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5", MaxTokens: 4000, System: []string{"You are a helpful assistant"},
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(parts[0].Text),
			{Type: message.Image, MediaType: "image/png", ImageData: data}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	providertest.AssertSameJSON(t, rel, rs.Body(0), []byte(c.Interactions[0].Request.Body))
	if providertest.TextOf(resp) == "" || resp.Usage.ReasoningTokens == 0 {
		t.Errorf("response %+v", resp)
	}
}

// Headers: the config's on every call, the request's on top; the key as a
// bearer token; the path under the base URL.
func TestHeadersAndURL(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	var path string
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got, path = r.Header.Clone(), r.URL.Path
		mu.Unlock()
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, okStream)
	})
	p, _ := New(provider.Config{Name: "p", Kind: provider.KindOpenAICompatible, BaseURL: url + "/api/v4/", APIKey: "sk-1",
		Headers: map[string]string{"X-Team": "a", "X-Trace": "cfg"}})
	req := providertest.SimpleRequest("m")
	req.Headers = map[string]string{"X-Trace": "call"}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if path != "/api/v4/chat/completions" || got.Get("Authorization") != "Bearer sk-1" || got.Get("X-Team") != "a" ||
		got.Get("X-Trace") != "call" || got.Get("Content-Type") != "application/json" {
		t.Errorf("path %s headers %v", path, got)
	}
}

func TestBaseURL(t *testing.T) {
	p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI})
	if err != nil || p.(*chatAdapter).url != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("default base: %v %v", p, err)
	}
	if _, err := New(provider.Config{Name: "local", Kind: provider.KindOpenAICompatible}); err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("openai-compatible without a base URL: %v", err)
	}
}

// HTTP errors: the server's message, auth for 401/403, retries for 5xx
// with the server's Retry-After, and the status text for a body that says
// nothing.
func TestHTTPErrors(t *testing.T) {
	for _, c := range []struct {
		status      int
		body        string
		auth, retry bool
		after       time.Duration
		msg         string
	}{
		{401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, true, false, 0, "Incorrect API key provided"},
		{403, `{"error":"forbidden for this project"}`, true, false, 0, "forbidden for this project"},
		{503, `<html>upstream down</html>`, false, true, 3 * time.Second, "Service Unavailable"},
	} {
		url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		})
		p, _ := New(provider.Config{Name: "p", Kind: provider.KindOpenAI, BaseURL: url, APIKey: "k"})
		_, err := p.Stream(context.Background(), providertest.SimpleRequest("gpt-4o"), nil)
		pe, ok := provider.AsError(err)
		if !ok || pe.Status != c.status || pe.Auth != c.auth || pe.Retryable != c.retry || pe.Message != c.msg || (c.retry && pe.RetryAfter != c.after) {
			t.Errorf("%d: %v (%+v)", c.status, err, pe)
		}
	}
}
