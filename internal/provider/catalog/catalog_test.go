package catalog

import (
	"math"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
)

func TestResolve(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec, provider, model string
		known                 bool
		errHas                string
	}{
		{spec: "claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5", known: true},
		{spec: "sonnet", provider: "anthropic", model: "claude-sonnet-5-5", known: true},
		{spec: "opus", provider: "anthropic", model: "claude-opus-5-5", known: true},
		{spec: "haiku", provider: "anthropic", model: "claude-haiku-5-5", known: true},
		{spec: "bedrock/sonnet", provider: "bedrock", model: "us.anthropic.claude-sonnet-5-5", known: true},
		{spec: "openai/best", provider: "openai", model: "gpt-6-astra", known: true},
		{spec: "best", errHas: "several providers"},
		{spec: "anthropic/claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5", known: true},
		{spec: "claude-sonnet-4", provider: "anthropic", model: "claude-sonnet-4-20250514", known: true},
		{spec: "claude-3-5-haiku-20241022", provider: "anthropic", model: "claude-3-5-haiku-20241022", known: true},
		{spec: "gpt-5-mini", provider: "openai", model: "gpt-5-mini", known: true},
		{spec: "deepseek-reasoner", provider: "deepseek", model: "deepseek-reasoner", known: true},
		{spec: "ollama/qwen3", provider: "ollama", model: "qwen3", known: true},
		{spec: "ollama/some-model:7b", provider: "ollama", model: "some-model:7b"},
		{spec: "openrouter/anthropic/claude-sonnet-4.5", provider: "openrouter", model: "anthropic/claude-sonnet-4.5"},
		{spec: "work/claude-opus-4-5", provider: "work", model: "claude-opus-4-5", known: true},
		{spec: "mystery-model", errHas: "provider/model"},
		{spec: "", errHas: "provider/model"},
		{spec: "/gpt-5", errHas: "provider/model"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			r, err := c.Resolve(tt.spec)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("want error containing %q, got %v (%+v)", tt.errHas, err, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Provider != tt.provider || r.Model != tt.model || (r.Info != nil) != tt.known {
				t.Errorf("got %+v (info %v)", r, r.Info != nil)
			}
		})
	}
}

func TestPresets(t *testing.T) {
	c, _ := Load()
	p, ok := c.Preset("ollama")
	if !ok || p.BaseURL != "http://localhost:11434/v1" || p.NeedsKey || p.Kind != "openai-compatible" {
		t.Errorf("ollama preset %+v", p)
	}
	p, _ = c.Preset("anthropic")
	if p.APIKeyEnv != "ANTHROPIC_API_KEY" || p.AuthTokenEnv != "ANTHROPIC_AUTH_TOKEN" || p.BaseURLEnv != "ANTHROPIC_BASE_URL" || !p.NeedsKey {
		t.Errorf("anthropic preset %+v", p)
	}
	for _, name := range []string{"openai", "openrouter", "deepseek", "lmstudio", "vllm", "llamacpp"} {
		if _, ok := c.Preset(name); !ok {
			t.Errorf("no preset %s", name)
		}
	}
	// every model's provider has a preset
	for _, m := range c.Models() {
		if _, ok := c.Preset(m.Provider); !ok {
			t.Errorf("model %s: provider %s has no preset", m.ID, m.Provider)
		}
		// A fact the providers' pages did not give is said in the row.
		if (m.ContextWindow == 0 || m.MaxOutputTokens == 0 || m.Price == nil) && m.Note == "" {
			t.Errorf("model %s incomplete and its note does not say so: %+v", m.ID, m)
		}
		if m.Source == "" || m.Checked == "" {
			t.Errorf("model %s/%s has no source or checked date", m.Provider, m.ID)
		}
	}
}

func TestCost(t *testing.T) {
	c, _ := Load()
	r, _ := c.Resolve("claude-sonnet-4-5")
	u := message.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheCreationTokens: 400_000}
	got := Cost(r.Info, u)
	want := 3.0 + 1.5 + 0.6 + 1.5
	if got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("cost %v, want %v", got, want)
	}
	if Cost(nil, u) != nil {
		t.Error("unknown model must have unknown cost")
	}
	local, _ := c.Resolve("ollama/llama3.2")
	if z := Cost(local.Info, u); z == nil || *z != 0 {
		t.Errorf("local model cost %v, want 0", z)
	}
}

func TestParseRejectsDuplicates(t *testing.T) {
	_, err := parse([]byte(`{"models":[{"id":"a","provider":"p"},{"id":"b","provider":"p","aliases":["a"]}]}`))
	if err == nil {
		t.Error("duplicate alias accepted")
	}
}
