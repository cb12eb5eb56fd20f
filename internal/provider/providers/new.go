// Package providers builds a provider.Provider from its config: the one
// place that maps a kind to its adapter package, so that the agent loop,
// which holds only the interface, links no vendor SDK.
package providers

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/anthropic"
	"github.com/tandem-agent/tandem/internal/provider/gemini"
	"github.com/tandem-agent/tandem/internal/provider/openai"
	"github.com/tandem-agent/tandem/internal/provider/responses"
)

// New builds the adapter for cfg. It makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	if cfg.Name == "" {
		cfg.Name = cfg.Kind
	}
	if cfg.Name == "" {
		return nil, fmt.Errorf("provider config: name and kind are empty; set kind to %s", provider.KindList())
	}
	switch {
	case cfg.Kind == provider.KindOpenAICompatible && cfg.BaseURL == "":
		return nil, fmt.Errorf("provider %s: kind %q needs a base URL (e.g. http://localhost:11434/v1 for ollama)",
			cfg.Name, cfg.Kind)
	case cfg.Kind == "":
		return nil, fmt.Errorf("provider %s: kind is empty; set it to %s", cfg.Name, provider.KindList())
	case !provider.ValidKind(cfg.Kind):
		return nil, fmt.Errorf("provider %s: unknown kind %q; use %s", cfg.Name, cfg.Kind, provider.KindList())
	}
	if cfg.NeedsKey() {
		return nil, fmt.Errorf("provider %s: no API key: %s", cfg.Name, cfg.KeyHint())
	}
	switch cfg.Kind {
	case provider.KindAnthropic:
		return anthropic.New(cfg)
	case provider.KindOpenAIResponses:
		return responses.New(cfg)
	case provider.KindGemini:
		return gemini.New(cfg)
	case provider.KindBedrock:
		return newBedrock(cfg)
	case provider.KindVertex:
		return newVertex(cfg)
	}
	chat, err := openai.New(cfg)
	if err != nil || cfg.Kind != provider.KindOpenAI || len(cfg.ResponsesModels) == 0 {
		return chat, err
	}
	viaResponses, err := responses.New(cfg)
	if err != nil {
		return nil, err
	}
	return newRouted(chat, viaResponses, cfg.ResponsesModels), nil
}
