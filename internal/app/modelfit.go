package app

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

// vendor is a model maker whose API is one wire-protocol family.
type vendor struct {
	family   string // what kinds of one family share
	maker    string // "an Anthropic model"
	protocol string // "only the Anthropic Messages API"
}

// vendorOf maps a provider kind to its family; kinds that serve arbitrary
// models (openai-compatible) have none and are never refused.
func vendorOf(kind string) (vendor, bool) {
	switch kind {
	case provider.KindAnthropic:
		return vendor{"anthropic", "an Anthropic model", "only the Anthropic Messages API"}, true
	case provider.KindOpenAI, provider.KindOpenAIResponses:
		return vendor{"openai", "an OpenAI model", "only OpenAI's APIs"}, true
	case provider.KindGemini:
		return vendor{"gemini", "a Google model", "only the Gemini API"}, true
	}
	return vendor{}, false
}

// checkServes refuses, before any request, a model the catalog knows as
// another vendor's when the provider speaks only its own vendor's
// protocol: anthropic/gemini-2.5-pro, or gpt-5 through a provider of kind
// anthropic. Unknown models pass (a proxy may serve anything), and so does
// a model listed under the provider's "models" in the config, the way to
// say "this proxy does serve it".
func (m *models) checkServes(res catalog.Resolved, pc provider.Config, entry config.Provider) error {
	have, ok := vendorOf(pc.Kind)
	if !ok {
		return nil
	}
	if _, listed := entry.Models[res.Model]; listed {
		return nil
	}
	info := res.Info
	if info == nil {
		if bare, err := m.cat.Resolve(res.Model); err == nil {
			info = bare.Info
		}
	}
	if info == nil || info.Provider == res.Provider {
		return nil
	}
	owner, known := m.cat.Preset(info.Provider)
	if !known {
		return nil
	}
	want, ok := vendorOf(owner.Kind)
	if !ok || want.family == have.family {
		return nil
	}
	return fmt.Errorf("%s is %s; the %s provider (kind %s) speaks %s. Use --model %s/%s (provider kind %s)",
		res.Model, want.maker, res.Provider, pc.Kind, have.protocol, info.Provider, info.ID, owner.Kind)
}

// checkClaudeCodeProvider refuses the claude-code runtime for a model whose
// provider does not speak the Anthropic Messages API: the CLI can send
// only that (an OpenAI key would go to Anthropic's endpoint and fail).
func (a *App) checkClaudeCodeProvider(s *Settings) error {
	name, _, ok := a.modelProvider(s)
	if !ok {
		return nil
	}
	pc, err := a.models.providerConfig(name, s.Config)
	if err != nil || pc.Kind == provider.KindAnthropic || pc.Kind == "" {
		return nil
	}
	return fmt.Errorf("model %s: the claude-code runtime speaks only the Anthropic Messages API, and provider %s is kind %s. Use --runtime native for this model, or an Anthropic model (e.g. --model anthropic/claude-sonnet-5-5)",
		s.Model, name, pc.Kind)
}
