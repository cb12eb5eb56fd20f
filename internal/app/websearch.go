package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/tools/web"
)

// nativeSearcher is WebSearch through the provider's own search: Anthropic
// runs the web_search server tool in a side call and returns the pages it
// used and the passages it cited. It is the fallback when no search API key
// is configured.
type nativeSearcher struct {
	app  *App
	cfg  *config.Config         // the session folder's settings (providers)
	spec func() (string, error) // the model to search with, resolved per call
}

const nativeSearchPrompt = "Search the web to answer the user's query. Then reply with a short, factual summary of what the sources say, citing them."

// Unavailable implements tool.Availability: the provider's own search
// needs an Anthropic model, the small model when one is set, else the
// turn's.
func (n nativeSearcher) Unavailable(model string) string {
	spec := firstNonEmpty(n.cfg.SmallModel, model)
	if spec == "" {
		var err error
		if spec, err = n.spec(); err != nil {
			return err.Error()
		}
	}
	res, err := n.app.Catalog.Resolve(spec)
	if err != nil {
		return err.Error()
	}
	pc, err := n.app.models.providerConfig(res.Provider, n.cfg)
	if err != nil {
		return err.Error()
	}
	if pc.Kind != provider.KindAnthropic {
		return fmt.Sprintf("%s (the model %s has no built-in web search)", web.NoBackendMessage, spec)
	}
	return ""
}

// Search implements web.Searcher.
func (n nativeSearcher) Search(ctx context.Context, query string, opts web.SearchOptions) ([]web.SearchResult, error) {
	spec, err := n.spec()
	if err != nil {
		return nil, err
	}
	res, err := n.app.Catalog.Resolve(spec)
	if err != nil {
		return nil, err
	}
	pc, err := n.app.models.providerConfig(res.Provider, n.cfg)
	if err != nil {
		return nil, err
	}
	if pc.Kind != provider.KindAnthropic {
		return nil, fmt.Errorf("%s (the model %s has no built-in web search)", web.NoBackendMessage, spec)
	}
	p, err := n.app.models.adapter(pc)
	if err != nil {
		return nil, err
	}
	tool := map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
	if len(opts.AllowedDomains) > 0 {
		tool["allowed_domains"] = opts.AllowedDomains
	} else if len(opts.BlockedDomains) > 0 {
		tool["blocked_domains"] = opts.BlockedDomains
	}
	raw, _ := json.Marshal(tool)
	resp, err := p.Stream(ctx, provider.Request{
		Model: res.Model, System: []string{nativeSearchPrompt}, MaxTokens: 2048,
		Messages:    []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(query)}}},
		ServerTools: []json.RawMessage{raw},
	}, func(provider.Delta) {})
	if err != nil {
		return nil, fmt.Errorf("web search through %s: %w", spec, err)
	}
	if len(resp.Sources) == 0 {
		return nil, fmt.Errorf("web search through %s found no pages", spec)
	}
	out := make([]web.SearchResult, 0, len(resp.Sources))
	for _, s := range resp.Sources {
		out = append(out, web.SearchResult{Title: s.Title, URL: s.URL, Snippet: strings.Join(s.Cited, " … ")})
	}
	return out, nil
}
