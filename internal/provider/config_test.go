package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
)

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		cfg    Config
		errHas string
	}{
		{Config{Name: "anthropic", Kind: KindAnthropic}, "ANTHROPIC_API_KEY"},
		{Config{Name: "openai", Kind: KindOpenAI}, "OPENAI_API_KEY"},
		{Config{Name: "deepseek", Kind: KindOpenAICompatible, BaseURL: "https://api.deepseek.com/v1"}, "DEEPSEEK_API_KEY"},
		{Config{Name: "corp", Kind: KindOpenAICompatible, BaseURL: "https://llm.corp/v1"}, "CORP_API_KEY"},
		{Config{Name: "x", Kind: "palm"}, "unknown kind"},
		{Config{Name: "x", Kind: KindOpenAICompatible}, "base URL"},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("%+v: want error with %q, got %v", tt.cfg, tt.errHas, err)
		}
	}
	for _, cfg := range []Config{
		{Name: "ollama", Kind: KindOpenAICompatible, BaseURL: "http://localhost:11434/v1"},
		{Name: "mine", Kind: KindOpenAICompatible, BaseURL: "http://127.0.0.1:8000/v1"},
		{Name: "anthropic", Kind: KindAnthropic, AuthToken: "tok"},
	} {
		if _, err := New(cfg); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// okAnthropic answers with a minimal complete stream and records headers.
func okAnthropic(t *testing.T, got *http.Header, body *[]byte) string {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		*got = r.Header.Clone()
		*body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, anthropicJSONToSSEString(`{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`))
	})
}

func anthropicJSONToSSEString(s string) string { out, _ := anthropicJSONToSSE(s); return out }

func TestAnthropicAuthHeaders(t *testing.T) {
	// Keys in the environment must not leak into requests: the SDKs read them.
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	var h http.Header
	var body []byte
	url := okAnthropic(t, &h, &body)

	p, _ := New(Config{Name: "anthropic", Kind: KindAnthropic, BaseURL: url, AuthToken: "tok",
		Headers: map[string]string{"X-Custom": "1"}})
	req := simpleRequest("claude-x")
	req.Headers = map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if h.Get("Authorization") != "Bearer tok" || h.Get("X-Api-Key") != "" {
		t.Errorf("bearer auth: Authorization=%q X-Api-Key=%q", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
	if h.Get("X-Custom") != "1" || h.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("headers not sent: %v", h)
	}

	p, _ = New(Config{Name: "anthropic", Kind: KindAnthropic, BaseURL: url, APIKey: "key"})
	if _, err := p.Stream(context.Background(), simpleRequest("claude-x"), nil); err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Api-Key") != "key" || h.Get("Authorization") != "" {
		t.Errorf("key auth: Authorization=%q X-Api-Key=%q", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
}

func TestLocalServerGetsNoEnvKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	var h http.Header
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		h = r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		out, _ := openAIJSONToSSE(`{"id":"c","model":"m","choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
		_, _ = io.WriteString(w, out)
	})
	p, err := New(Config{Name: "ollama", Kind: KindOpenAICompatible, BaseURL: url + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Stream(context.Background(), simpleRequest("llama3.2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if textOf(resp) != "ok" {
		t.Errorf("text %q", textOf(resp))
	}
	if a := h.Get("Authorization"); a != "" {
		t.Errorf("local server got Authorization %q", a)
	}
}

func TestAnthropicRequestShape(t *testing.T) {
	var h http.Header
	var body []byte
	url := okAnthropic(t, &h, &body)
	p, _ := New(Config{Name: "anthropic", Kind: KindAnthropic, BaseURL: url, APIKey: "k"})
	img := "iVBORw0KGgo="
	req := Request{
		Model: "claude-x", MaxTokens: 1000, ThinkingBudget: 2000, Effort: "high",
		System: []string{"one", "two"},
		Tools: []ToolSpec{
			{Name: "read", Description: "r", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/path"}},"required":["p"],"$defs":{"path":{"type":"string"}}}`)},
			{Name: "shot", Description: "s"},
		},
		Messages: []message.Message{
			{ID: "1", Role: message.User, Content: []message.Block{message.TextBlock("look")}},
			{ID: "2", Role: message.Assistant, Content: []message.Block{
				{Type: message.Thinking, Text: "mine", Signature: "sig-a", Provider: "anthropic"},
				{Type: message.Thinking, Text: "foreign", Signature: "sig-b", Provider: "openai"},
				{Type: message.RedactedThinking, Data: "opaque", Provider: "anthropic"},
				message.TextBlock("taking a shot"),
				{Type: message.ToolUse, ID: "t1", Name: "shot", Input: json.RawMessage(`{}`)},
			}},
			{ID: "3", Role: message.User, Content: []message.Block{
				{Type: message.ToolResult, ToolUseID: "t1", Content: []message.Block{
					message.TextBlock("screen"),
					{Type: message.Image, MediaType: "image/png", ImageData: img},
				}},
			}},
		},
	}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	s := string(body)
	for _, want := range []string{
		`"signature":"sig-a"`, `"data":"opaque"`, `"$defs"`, `"budget_tokens":2000`,
		`"output_config":{"effort":"high"}`, `"media_type":"image/png"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("body lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "sig-b") || strings.Contains(s, "foreign") {
		t.Errorf("thinking from another provider was sent:\n%s", s)
	}
	var parsed struct {
		MaxTokens int64 `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &parsed)
	if parsed.MaxTokens <= 2000 {
		t.Errorf("max_tokens %d must exceed the thinking budget", parsed.MaxTokens)
	}
	assertBreakpoints(t, body)
}
