package app

import (
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/secrets"
)

// secretPolicy lists the credentials tool processes must not inherit: the
// well-known ones, every preset's and configured provider's key variable,
// the web search key and the configured extras. Only the user's file may
// let a secret through (a cloned project must not ask for the keys).
func (w *wiring) secretPolicy(cfg *config.Config) secrets.Policy {
	var extra, pass []string
	if w.app.Catalog != nil {
		for _, name := range w.app.Catalog.Presets() {
			if p, ok := w.app.Catalog.Preset(name); ok {
				extra = append(extra, p.APIKeyEnv, p.AuthTokenEnv)
			}
		}
	}
	var files []string
	for _, p := range cfg.Providers {
		extra = append(extra, p.APIKeyEnv)
		if f := p.CredentialsFile; f != "" {
			if w.app.models != nil {
				f = w.app.models.expandHome(f)
			}
			files = append(files, f)
		}
	}
	extra = append(extra, cfg.Tools.WebSearch.APIKeyEnv)
	for _, l := range cfg.Layers {
		extra = append(extra, l.Secrets.Env...)
		if l.Scope == "user" {
			pass = append(pass, l.Secrets.PassEnv...)
		}
	}
	return secrets.New(extra, pass).WithFiles(files...).WithTokenFiles(w.app.Paths.TokenFile())
}
