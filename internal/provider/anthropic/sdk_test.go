package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// anthropicSSE serves a Messages API response (as JSON) as its stream.
func anthropicSSE(t *testing.T, msg string, got *[]byte) string {
	return providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		if got != nil {
			*got, _ = io.ReadAll(r.Body)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, providertest.AnthropicJSONToSSEString(msg))
	})
}

func TestAnthropicIgnoresEnvironment(t *testing.T) {
	// Everything the SDK would pick up on its own must stay out.
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	t.Setenv("ANTHROPIC_PROFILE", "nonexistent-profile")
	t.Setenv("ANTHROPIC_CONFIG_DIR", t.TempDir())
	var h http.Header
	var body []byte
	url := providertest.OKAnthropic(t, &h, &body)
	p, err := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "cfg-key"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), providertest.SimpleRequest("claude-x"), nil); err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Api-Key") != "cfg-key" || h.Get("Authorization") != "" || h.Get("X-Leak") != "" {
		t.Errorf("headers: %v", h)
	}
	if h.Get("Traceparent") != "" {
		t.Errorf("trace context sent: %v", h)
	}
}

func TestAnthropicMakesOneAttempt(t *testing.T) {
	var calls atomic.Int32
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	_, err := p.Stream(context.Background(), providertest.SimpleRequest("m"), nil)
	if pe, ok := provider.AsError(err); !ok || !pe.Retryable {
		t.Fatalf("want retryable *provider.Error, got %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("SDK retried on its own: %d requests, want 1 (the agent loop retries)", n)
	}
}

func TestAnthropicErrorClasses(t *testing.T) {
	tests := []struct {
		status    int
		body      string
		retryable bool
		auth      bool
		msgHas    string
	}{
		{408, `{"type":"error","error":{"type":"timeout_error","message":"slow"}}`, true, false, "slow"},
		{409, `{"type":"error","error":{"type":"api_error","message":"conflict"}}`, true, false, "conflict"},
		{403, `{"type":"error","error":{"type":"permission_error","message":"no access"}}`, false, true, "no access"},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`, false, false, "bad"},
		{502, `<html>Bad Gateway</html>`, true, false, "Bad Gateway"},
	}
	for _, tt := range tests {
		url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
			_, _ = io.WriteString(w, tt.body)
		})
		p, _ := New(provider.Config{Name: "a", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
		_, err := p.Stream(context.Background(), providertest.SimpleRequest("m"), nil)
		pe, ok := provider.AsError(err)
		if !ok {
			t.Fatalf("%d: want *provider.Error, got %v", tt.status, err)
		}
		if pe.Status != tt.status || pe.Retryable != tt.retryable || pe.Auth != tt.auth || !strings.Contains(pe.Message, tt.msgHas) {
			t.Errorf("%d: got %+v", tt.status, pe)
		}
	}
}

func TestAnthropicStopReasonsAsSent(t *testing.T) {
	for _, reason := range []string{"pause_turn", "stop_sequence", "max_tokens", "refusal"} {
		url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"hi"}],"stop_reason":"`+reason+`","usage":{"input_tokens":3,"output_tokens":1}}`, nil)
		p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
		r, err := p.Stream(context.Background(), providertest.SimpleRequest("m"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.StopReason != reason {
			t.Errorf("stop reason %q, want %q", r.StopReason, reason)
		}
	}
}

func TestAnthropicRedactedThinkingRoundTrip(t *testing.T) {
	var body []byte
	url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[`+
		`{"type":"redacted_thinking","data":"opaque-blob"},{"type":"text","text":"ok"}],"stop_reason":"end_turn",`+
		`"usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":7,"cache_creation_input_tokens":2}}`, &body)
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	r, err := p.Stream(context.Background(), providertest.SimpleRequest("m"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || r.Content[0].Type != message.RedactedThinking || r.Content[0].Data != "opaque-blob" || r.Content[0].Provider != "anthropic" {
		t.Fatalf("content: %+v", r.Content)
	}
	if r.Usage.InputTokens != 3 || r.Usage.CacheReadTokens != 7 || r.Usage.CacheCreationTokens != 2 {
		t.Errorf("usage: %+v", r.Usage)
	}
	req := providertest.SimpleRequest("m")
	req.Messages = append(req.Messages, message.Message{ID: "a", Role: message.Assistant, Content: r.Content},
		message.Message{ID: "u2", Role: message.User, Content: []message.Block{message.TextBlock("more")}})
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `{"data":"opaque-blob","type":"redacted_thinking"}`) {
		t.Errorf("redacted thinking not sent back:\n%s", body)
	}
}

func TestAnthropicToolResultImagesAndMerging(t *testing.T) {
	var body []byte
	url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`, &body)
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	img := message.Block{Type: message.Image, MediaType: "image/png", ImageData: "iVBORw0KGgo="}
	req := provider.Request{Model: "m", Messages: []message.Message{
		{ID: "1", Role: message.User, Content: []message.Block{message.TextBlock("look")}},
		{ID: "2", Role: message.Assistant, Content: []message.Block{
			{Type: message.Thinking, Text: "only thinking", Signature: "s", Provider: "anthropic"},
		}},
		{ID: "3", Role: message.User, Content: []message.Block{message.TextBlock("again")}},
		{ID: "4", Role: message.Assistant, Content: []message.Block{{Type: message.ToolUse, ID: "t1", Name: "shot", Input: json.RawMessage(`"not an object"`)}}},
		{ID: "5", Role: message.User, Content: []message.Block{
			message.TextBlock("after"),
			{Type: message.ToolResult, ToolUseID: "t1", IsError: true, Content: []message.Block{message.TextBlock("partial"), img, img}},
		}},
	}}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	// The thinking-only assistant turn is dropped and the user turns
	// around it merge, so roles alternate.
	var roles []string
	for _, m := range sent.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Fatalf("roles %v:\n%s", roles, body)
	}
	if in := sent.Messages[1].Content[0]["input"]; in == nil || len(in.(map[string]any)) != 0 {
		t.Errorf("non-object tool input should be sent as {}: %v", in)
	}
	last := sent.Messages[2].Content
	if last[0]["type"] != "tool_result" || last[0]["is_error"] != true {
		t.Fatalf("tool result must come first and be an error: %v", last)
	}
	inner, _ := last[0]["content"].([]any)
	if len(inner) != 3 || inner[0].(map[string]any)["type"] != "text" || inner[2].(map[string]any)["type"] != "image" {
		t.Errorf("tool result content (text, then both images): %v", inner)
	}
	if last[1]["text"] != "after" || last[1]["cache_control"] == nil {
		t.Errorf("trailing text with breakpoint: %v", last[1])
	}
}

func TestAnthropicBadImage(t *testing.T) {
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: "http://127.0.0.1:1", APIKey: "k"})
	req := providertest.SimpleRequest("m")
	req.Messages[0].Content = append(req.Messages[0].Content, message.Block{Type: message.Image, ImageData: "%%%not base64"})
	_, err := p.Stream(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "not base64") {
		t.Errorf("want a base64 error, got %v", err)
	}
	if err := checkBase64(strings.Repeat("QUJD", 5000)); err != nil {
		t.Errorf("long valid base64 across chunks: %v", err)
	}
	if err := checkBase64(strings.Repeat("QUJD", 2000) + "QQ==" + "QUJD"); err == nil {
		t.Error("padding in the middle accepted")
	}
}

func TestAnthropicThinkingModes(t *testing.T) {
	tests := []struct {
		model    string
		budget   int64
		thinking string
	}{
		{"claude-sonnet-4-5", 3000, `{"budget_tokens":3000,"type":"enabled"}`},
		{"claude-opus-4-20250514", 3000, `{"budget_tokens":3000,"type":"enabled"}`},
		{"claude-opus-4-6", 3000, `{"type":"adaptive"}`},
		{"claude-opus-4-7", 3000, `{"display":"summarized","type":"adaptive"}`},
		{"claude-mythos-preview", 0, `{"display":"summarized","type":"adaptive"}`},
		{"claude-sonnet-4-5", 0, ``},
	}
	for _, tt := range tests {
		var body []byte
		url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`, &body)
		p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
		req := providertest.SimpleRequest(tt.model)
		req.ThinkingBudget = tt.budget
		if _, err := p.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		var sent struct {
			Thinking json.RawMessage `json:"thinking"`
		}
		_ = json.Unmarshal(body, &sent)
		if string(sent.Thinking) != tt.thinking {
			t.Errorf("%s budget %d: thinking %s, want %s", tt.model, tt.budget, sent.Thinking, tt.thinking)
		}
	}
}

func TestAnthropicToolsConvertedOnce(t *testing.T) {
	var body []byte
	url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`, &body)
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	a := p.(*anthropicAdapter)
	schema := []byte(`{"type":"object","properties":{"p":{"type":"string"}}}`)
	req := providertest.SimpleRequest("m")
	req.System = []string{"sys"}
	req.Tools = []provider.ToolSpec{{Name: "a", InputSchema: schema}, {Name: "b"}}
	for range 3 {
		if _, err := p.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := a.tools.Len(); n != 1 {
		t.Fatalf("%d cached tool sets, want 1", n)
	}
	first := []provider.ToolSpec{{Name: "a", InputSchema: bytes.Clone(schema)}, {Name: "b"}}
	// The caller reusing its buffer must not change what was cached.
	copy(schema, `{"type":"object","properties":{"q":{"type":"number"}}}`)
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := a.tools.Len(); n != 2 {
		t.Fatalf("changed schema not rebuilt: %d entries", n)
	}
	if _, err := a.tools.Get(first, func([]provider.ToolSpec) ([]byte, error) {
		t.Error("the older set was evicted too early")
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"q":{"type":"number"}`) {
		t.Errorf("new schema not sent:\n%s", body)
	}
	assertBreakpoints(t, body)
}
