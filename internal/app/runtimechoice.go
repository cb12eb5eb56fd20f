package app

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/runtimes"
)

// routeCompat: for a provider with "transport": "claude-code-compat" (a
// proxy that accepts only Claude Code's requests) and no runtime named in
// the request or the config (unnamed), it follows the reference design:
// the claude-code runtime when the CLI is installed, else the native
// runtime with the compat transport. That is "auto", which the wiring
// resolves per turn (claudecode.AutoSelect). --runtime native (or
// "runtime" in the config) keeps the native runtime.
func (a *App) routeCompat(s *Settings, unnamed bool) {
	if !unnamed {
		return
	}
	if _, entry, ok := a.modelProvider(s); ok && entry.Transport == provider.TransportClaudeCodeCompat {
		s.Runtime = runtimes.Auto
	}
}

// checkClaudeCodeCLI refuses a session forced onto the claude-code runtime
// when the CLI cannot be used, naming both ways out: install the CLI, or
// run natively, with the compat transport when the provider needs it.
func (a *App) checkClaudeCodeCLI(s *Settings) error {
	if s.Runtime != runtimes.ClaudeCode {
		return nil
	}
	cc, err := ClaudeCodeConfig(s.Config)
	if err != nil {
		return err
	}
	info, err := claudecode.Find(cc)
	if err == nil {
		return nil
	}
	name, entry, _ := a.modelProvider(s)
	if name == "" {
		name = "NAME"
	}
	native := "run the native runtime instead (--runtime native)"
	if entry.Transport != provider.TransportClaudeCodeCompat {
		native += fmt.Sprintf(", and if the provider accepts only Claude Code's requests set \"transport\": \"claude-code-compat\" under providers.%s in tandem's config", name)
	}
	return fmt.Errorf("runtime claude-code: %s. Install Claude Code (npm install -g @anthropic-ai/claude-code) or set claude_code.path, or %s", info.Problem, native)
}

// modelProvider is the provider the session's model goes to and its config
// entry (zero when the config has none).
func (a *App) modelProvider(s *Settings) (string, config.Provider, bool) {
	if s.Model == "" {
		return "", config.Provider{}, false
	}
	res, err := a.Catalog.Resolve(s.Model)
	if err != nil {
		return "", config.Provider{}, false
	}
	entry := s.Config.Providers[res.Provider]
	return res.Provider, entry, true
}
