package app

import (
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

// ServerCatalog adapts the model catalog and provider presets to what the
// HTTP API lists. Keys are never included, only whether one is set.
type ServerCatalog struct{ App *App }

// Providers lists the catalog's presets and the user's configured providers.
func (c ServerCatalog) Providers() []listing.ProviderInfo {
	a := c.App
	seen := map[string]bool{}
	var out []listing.ProviderInfo
	for name, p := range a.User.Providers {
		pc, err := a.models.providerConfig(name, a.User)
		info := listing.ProviderInfo{Name: name, Kind: p.Kind, BaseURL: p.BaseURL}
		if err == nil {
			// A cloud provider in the user's file is set up: its credentials
			// come from the cloud's own chain, found on the first call.
			info.Kind, info.BaseURL, info.HasKey = pc.Kind, pc.BaseURL, pc.APIKey != "" || pc.AuthToken != "" || provider.CloudKind(pc.Kind)
		}
		out = append(out, info)
		seen[name] = true
	}
	for _, name := range a.Catalog.Presets() {
		if seen[name] {
			continue
		}
		pc, err := a.models.providerConfig(name, a.User)
		if err != nil {
			continue
		}
		out = append(out, listing.ProviderInfo{Name: name, Kind: pc.Kind, BaseURL: pc.BaseURL, HasKey: pc.APIKey != "" || pc.AuthToken != ""})
	}
	return out
}

// Models lists the catalog's models, marking the default and the status
// of those not active; retired ones are left out (sessions refuse them).
func (c ServerCatalog) Models() []listing.ModelInfo {
	def := c.App.DefaultModel(c.App.User)
	now := c.App.models.now()
	var out []listing.ModelInfo
	for _, m := range c.App.Catalog.Models() {
		if m.StatusAt(now) == catalog.Retired {
			continue
		}
		id := m.Provider + "/" + m.ID
		mi := listing.ModelInfo{ID: id, Provider: m.Provider, Name: m.Name, ContextWindow: m.ContextWindow,
			MaxOutput: m.MaxOutputTokens, Default: id == def, Status: m.StatusLabel(now)}
		if m.Price != nil {
			in, outp := m.Price.Input, m.Price.Output
			mi.InputPerMTok, mi.OutputPerMTok = &in, &outp
		}
		out = append(out, mi)
	}
	return out
}
