package app

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/provider"
)

// probeTimeout bounds each provider's live check; a host that swallows
// packets must not hold doctor for the HTTP client's own timeouts.
const probeTimeout = 10 * time.Second

// CheckProviders makes one live request to every provider that is set up
// under s: named in the config files (and not disabled), or a preset whose
// key is in the environment. The session's model and fallback models are
// looked for in their provider's list. Providers are checked in parallel;
// the result is sorted by name.
func (a *App) CheckProviders(ctx context.Context, s *Settings) []provider.Probe {
	wanted := map[string]string{} // provider -> model id to look for
	for _, spec := range append([]string{s.Model}, s.FallbackModels...) {
		if spec == "" {
			continue
		}
		if res, err := a.Catalog.Resolve(spec); err == nil {
			if _, seen := wanted[res.Provider]; !seen {
				wanted[res.Provider] = res.Model
			}
		}
	}
	names := map[string]bool{}
	for _, n := range a.Catalog.Presets() {
		names[n] = false
	}
	for n, p := range s.Config.Providers {
		names[n] = !p.Disabled
	}
	var out []provider.Probe
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, configured := range names {
		if entry, ok := s.Config.Providers[name]; ok && entry.Disabled {
			continue
		}
		pc, err := a.models.providerConfig(name, s.Config)
		if err != nil {
			if configured {
				out = append(out, provider.Probe{Provider: name, Kind: pc.Kind, BaseURL: pc.BaseURL, Error: err.Error()})
			}
			continue
		}
		if !configured && pc.APIKey == "" && pc.AuthToken == "" {
			continue // a preset the user has not set up
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			p := provider.ProbeProvider(pctx, pc, wanted[name])
			mu.Lock()
			out = append(out, p)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}
