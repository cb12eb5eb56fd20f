package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		cfg    provider.Config
		errHas string
	}{
		{provider.Config{Name: "anthropic", Kind: provider.KindAnthropic}, "ANTHROPIC_API_KEY"},
		{provider.Config{Name: "openai", Kind: provider.KindOpenAI}, "OPENAI_API_KEY"},
		{provider.Config{Name: "deepseek", Kind: provider.KindOpenAICompatible, BaseURL: "https://api.deepseek.com/v1"}, "DEEPSEEK_API_KEY"},
		{provider.Config{Name: "corp", Kind: provider.KindOpenAICompatible, BaseURL: "https://llm.corp/v1"}, "CORP_API_KEY"},
		{provider.Config{Name: "x", Kind: "palm"}, "unknown kind"},
		{provider.Config{Name: "x", Kind: provider.KindOpenAICompatible}, "base URL"},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("%+v: want error with %q, got %v", tt.cfg, tt.errHas, err)
		}
	}
	for _, cfg := range []provider.Config{
		{Name: "ollama", Kind: provider.KindOpenAICompatible, BaseURL: "http://localhost:11434/v1"},
		{Name: "mine", Kind: provider.KindOpenAICompatible, BaseURL: "http://127.0.0.1:8000/v1"},
		{Name: "anthropic", Kind: provider.KindAnthropic, AuthToken: "tok"},
	} {
		if _, err := New(cfg); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

func TestAnthropicAuthHeaders(t *testing.T) {
	// Keys in the environment must not leak into requests: the SDKs read them.
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	var h http.Header
	var body []byte
	url := providertest.OKAnthropic(t, &h, &body)

	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, AuthToken: "tok",
		Headers: map[string]string{"X-Custom": "1"}})
	req := providertest.SimpleRequest("claude-x")
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

	p, _ = New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "key"})
	if _, err := p.Stream(context.Background(), providertest.SimpleRequest("claude-x"), nil); err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Api-Key") != "key" || h.Get("Authorization") != "" {
		t.Errorf("key auth: Authorization=%q X-Api-Key=%q", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
}

func TestLocalServerGetsNoEnvKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	var h http.Header
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		h = r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		out, _ := providertest.OpenAIJSONToSSE(`{"id":"c","model":"m","choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
		_, _ = io.WriteString(w, out)
	})
	p, err := New(provider.Config{Name: "ollama", Kind: provider.KindOpenAICompatible, BaseURL: url + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Stream(context.Background(), providertest.SimpleRequest("llama3.2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if providertest.TextOf(resp) != "ok" {
		t.Errorf("text %q", providertest.TextOf(resp))
	}
	if a := h.Get("Authorization"); a != "" {
		t.Errorf("local server got Authorization %q", a)
	}
}
