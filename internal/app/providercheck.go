package app

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/provider/providers"
)

// probeTimeout bounds each provider's live check; a host that swallows
// packets must not hold doctor for the HTTP client's own timeouts.
const probeTimeout = 10 * time.Second

// CheckProviders makes one live request to every provider that is set up
// under s: named in the config files (and not disabled), or a preset whose
// key is in the environment. The session's model and fallback models are
// looked for in their provider's list. Providers are checked in parallel;
// the result is sorted by name.
func (a *App) CheckProviders(ctx context.Context, s *Settings) []providers.Probe {
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
	set, out := a.providersSetUp(s)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, pc := range set {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			p := providers.ProbeProvider(pctx, pc, wanted[pc.Name])
			mu.Lock()
			out = append(out, p)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// providersSetUp lists the providers configured in a file (and not
// disabled) or preset with a key in the environment; configured ones whose
// settings do not resolve come back as failed probes.
func (a *App) providersSetUp(s *Settings) ([]provider.Config, []providers.Probe) {
	names := map[string]bool{}
	for _, n := range a.Catalog.Presets() {
		names[n] = false
	}
	for n, p := range s.Config.Providers {
		if p.Disabled {
			delete(names, n)
			continue
		}
		names[n] = true
	}
	var set []provider.Config
	var failed []providers.Probe
	for name, configured := range names {
		pc, err := a.models.providerConfig(name, s.Config)
		if err != nil {
			if configured {
				failed = append(failed, providers.Probe{Provider: name, Kind: pc.Kind, BaseURL: pc.BaseURL, Error: err.Error()})
			}
			continue
		}
		if !configured && pc.APIKey == "" && pc.AuthToken == "" {
			continue // a preset the user has not set up
		}
		set = append(set, pc)
	}
	sort.Slice(set, func(i, j int) bool { return set[i].Name < set[j].Name })
	return set, failed
}

// RefreshModels asks every provider set up under s for its model list and
// saves what they said in the data folder's model list (catalog.Refreshed),
// keeping a provider's previous list when it fails this time. The errors
// name the providers that failed.
func (a *App) RefreshModels(ctx context.Context, s *Settings) (catalog.Refreshed, []error) {
	path := filepath.Join(a.Paths.DataDir, catalog.RefreshedFile)
	prev, err := catalog.LoadRefreshed(path)
	if err != nil {
		return prev, []error{err}
	}
	next := catalog.Refreshed{FetchedAt: time.Now().UTC(), Providers: map[string][]string{}}
	set, failed := a.providersSetUp(s)
	var errs []error
	for _, f := range failed {
		errs = append(errs, fmt.Errorf("%s: %s", f.Provider, f.Error))
	}
	for _, pc := range set {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		ids, err := providers.ListModels(pctx, pc)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", pc.Name, err))
			if old, ok := prev.Providers[pc.Name]; ok {
				next.Providers[pc.Name] = old
			}
			continue
		}
		sort.Strings(ids)
		next.Providers[pc.Name] = ids
	}
	if err := next.Save(path); err != nil {
		errs = append(errs, err)
	}
	return next, errs
}
