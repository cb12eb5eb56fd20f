package catalog

import (
	"reflect"
	"testing"
)

// The clouds' copies of a model have the first party's limits, prices and
// capabilities, and bare ids stay the first party's.
func TestHostedModels(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	hosted := 0
	for _, m := range c.Models() {
		if m.SameAs == "" {
			continue
		}
		hosted++
		own, _ := c.find(m.SameAs, m.ID)
		if own == nil {
			t.Fatalf("%s/%s: no %s/%s", m.Provider, m.ID, m.SameAs, m.ID)
		}
		if m.ContextWindow != own.ContextWindow || m.MaxOutputTokens != own.MaxOutputTokens || !reflect.DeepEqual(m.Price, own.Price) ||
			m.SupportsThinking != own.SupportsThinking || m.SupportsImages != own.SupportsImages || m.Price == nil {
			t.Errorf("%s/%s differs from %s: %+v vs %+v", m.Provider, m.ID, m.SameAs, m, *own)
		}
	}
	if hosted < 10 {
		t.Errorf("only %d hosted models", hosted)
	}
	for _, tc := range []struct{ spec, provider, model string }{
		{"claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"},
		{"gemini-2.5-flash", "gemini", "gemini-2.5-flash"},
		{"bedrock/claude-sonnet-4-5", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"bedrock/eu.anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock", "eu.anthropic.claude-haiku-4-5-20251001-v1:0"},
		{"vertex/claude-sonnet-4-5", "vertex", "claude-sonnet-4-5@20250929"},
		{"vertex/gemini-2.5-pro", "vertex", "gemini-2.5-pro"},
		{"work/claude-opus-4-5", "work", "claude-opus-4-5"}, // a proxy: priced as Anthropic's
	} {
		r, err := c.Resolve(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if r.Provider != tc.provider || r.Model != tc.model || r.Info == nil || r.Info.Price == nil {
			t.Errorf("%s: %+v", tc.spec, r)
		}
	}
	bad := []byte(`{"presets": [], "models": [{"id": "x", "provider": "bedrock", "same_as": "anthropic"}]}`)
	if _, err := parse(bad); err == nil {
		t.Error("a hosted model without its first-party entry was accepted")
	}
}
