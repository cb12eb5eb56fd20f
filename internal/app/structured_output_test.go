package app

import (
	"testing"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

// Which models get the native structured-output field: the catalog's
// first-party entries that say so, not the clouds' copies of them, and
// whatever a config entry says for its model (an OpenAI-compatible
// server's model is off until its config turns it on).
func TestNativeOutputFromCatalogAndConfig(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "AWS_REGION": "us-east-1", "AWS_BEARER_TOKEN_BEDROCK": "b"}
	m := newModels(cat, func(k string) string { return env[k] })
	on := true
	cfg := &config.Config{Providers: map[string]config.Provider{
		"ollama": {Models: map[string]config.ProviderModel{"qwen3": {StructuredOutput: &on}}},
	}}
	for spec, want := range map[string]bool{
		"anthropic/claude-sonnet-5-5": true,
		"anthropic/claude-haiku-4-5":  true,
		"anthropic/claude-opus-4-5":   true,
		"bedrock/claude-sonnet-4":     false,
		"bedrock/claude-sonnet-5-5":   false,
		"ollama/qwen3":                true,
		"ollama/llama3.2":             false,
	} {
		got, err := m.resolver(cfg).Resolve(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if got.NativeOutput != want {
			t.Errorf("%s: native output %v, want %v", spec, got.NativeOutput, want)
		}
	}
}
