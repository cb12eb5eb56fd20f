package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/plugin"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/trust"
)

// SettingsRequest is what an entry point asks for a session: `tandem run`
// flags, `tandem serve` defaults or HTTP request fields. Empty fields are
// decided by the configuration.
type SettingsRequest struct {
	Cwd                  string // "" means the current folder
	Model, Runtime, Mode string
	MaxTurns             int
	// Sandbox is "on" or "off" (--sandbox, --no-sandbox); "": the config's.
	Sandbox string
	// CheckModel resolves the model now (a new session, or a request that
	// names a model), so a typo or a missing key fails before anything is
	// stored.
	CheckModel bool
}

// Settings are a session's resolved settings: the configuration layers
// (user file, project file, environment), Claude Code's settings, and the
// request laid over them, after the folder's trust was checked. Resolve
// builds them; Equip uses them without reading the files again.
type Settings struct {
	Cwd    string
	Config *config.Config
	// Model is the model spec in force ("" only when nothing names one and
	// no key is set, for runtimes that may not need one).
	Model    string
	Runtime  runtimes.Name
	Mode     permission.Mode
	MaxTurns int
	// MaxBudgetUSD is the config's max_budget_usd (0: none).
	MaxBudgetUSD float64
	// FallbackModels are the config's fallback_models.
	FallbackModels []string
	// Sandbox is the sandbox configuration in force (files and flag).
	Sandbox sandbox.Config
	// Trusted says the folder is trusted (by `tandem trust` or the
	// TrustProject option); TrustRoot is the trusted folder covering it.
	Trusted   bool
	TrustRoot string
	// LeftOut lists the project settings an untrusted folder's session
	// runs without (empty when trusted): each front end says so once, at
	// the session's start (trust.Notice).
	LeftOut []trust.Finding

	// mcpLocal and mcpProject are the servers of .tandem/config.json and
	// .mcp.json as decoded and gated; mcpErrs the entries that failed.
	mcpLocal, mcpProject mcp.Servers
	mcpErrs              []error
	// claudeLeftOut says a project Claude Code settings file lost keys to
	// the trust check: the Claude Code CLI must not read those files.
	claudeLeftOut bool
	// ext are the folder's skills, commands and agents, loaded once: the
	// trust check above and the session's tools (Equip) both use them.
	ext *loadedExtensions
	// plugins are the session's plugins, loaded once: skills, commands,
	// agents, hooks and MCP servers all come from this one load.
	plugins *plugin.Set
	// style is the output style in force (nil: none), outputstyle.go.
	style *prompt.Style

	home   string
	perm   permLayers
	claude permission.ClaudeLayers
	hooks  hooks.Config
}

// ResolveSettings is the one place a session's settings are decided, for
// `tandem run`, `tandem serve` (and its HTTP API) and `tandem doctor`. It
// reads every config file once, validates all of it (file, line and key in
// errors), leaves out the project settings an untrusted folder may not use
// (Settings.LeftOut; refused with *trust.UntrustedError under
// Options.RequireTrust), and lays the request over the result: request >
// environment > project file > user file.
func (a *App) ResolveSettings(ctx context.Context, req SettingsRequest) (*Settings, error) {
	cwd, err := session.ResolveDir(req.Cwd)
	if err != nil {
		return nil, err
	}
	f, err := a.openFolder(cwd)
	if err != nil {
		return nil, err
	}
	cfg := f.cfg
	if err := a.checkEnvBaseURLs(); err != nil {
		return nil, err
	}
	s := &Settings{Cwd: cwd, Config: cfg, home: a.home(), Trusted: f.trusted, TrustRoot: f.trustRoot,
		mcpLocal: f.mcpLocal, mcpProject: f.mcpProject, mcpErrs: f.mcpErrs, claudeLeftOut: f.claudeLeftOut}
	s.plugins = a.pluginSet()
	if s.ext, err = a.loadExtensions(cfg, cwd, f.trusted, s.plugins); err != nil {
		return nil, err
	}
	if !f.trusted {
		s.LeftOut = append(f.needs, s.ext.needs...)
		if a.opts.RequireTrust && len(s.LeftOut) > 0 {
			return nil, &trust.UntrustedError{Dir: cwd, Findings: s.LeftOut}
		}
	}
	s.style = a.chooseStyle(s, f)
	if s.perm, err = permissionConfig(cfg); err != nil {
		return nil, err
	}
	if s.claude, err = permission.BuildClaudeLayers(f.claude); err != nil {
		return nil, err
	}
	// A plugin's hooks are the user's: installing it was the consent.
	s.hooks = hooks.Merge(s.claude.Hooks, s.perm.user.Hooks, s.perm.project.Hooks, s.plugins.Hooks())
	if err := s.hooks.Validate(); err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	if _, err := ClaudeCodeConfig(cfg); err != nil {
		return nil, err
	}
	if _, err := compact.Parse(cfg.Compaction, cfg.SectionSource("compaction")); err != nil {
		return nil, err
	}
	// The config's runtime was checked when it was read.
	s.Runtime = cmp.Or(cfg.Runtime, runtimes.Native)
	if req.Runtime != "" {
		if s.Runtime, err = runtimes.Parse(req.Runtime); err != nil {
			return nil, err
		}
	}
	s.Model = firstNonEmpty(req.Model, a.DefaultModel(cfg))
	a.routeCompat(s, req.Runtime == "" && cfg.Runtime == "")
	s.MaxTurns = req.MaxTurns
	s.FallbackModels = cfg.FallbackModels
	if s.MaxTurns == 0 {
		s.MaxTurns = cfg.MaxTurns
	}
	s.MaxBudgetUSD = cfg.MaxBudgetUSD
	if s.Sandbox, err = a.sandboxConfig(cfg, cmp.Or(req.Sandbox, a.opts.Sandbox)); err != nil {
		return nil, err
	}
	if s.Mode, err = sessionMode(req.Mode, cfg, s.perm, s.claude, cwd, a.opts.Getenv, a.opts.Stderr); err != nil {
		return nil, err
	}
	if req.CheckModel {
		if err := a.checkModel(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkModel resolves the session's model with the folder's provider
// settings, without calling the provider. The claude-code runtime may have
// its own login and model names; it reports problems itself.
func (a *App) checkModel(s *Settings) error {
	if s.Runtime == runtimes.ClaudeCode {
		return a.checkClaudeCodeProvider(s)
	}
	if s.Runtime == runtimes.Auto {
		return nil
	}
	if s.Model == "" {
		return errors.New("no model chosen: pass --model provider/model (e.g. anthropic/claude-sonnet-4-5), set \"model\" in tandem's config, or set ANTHROPIC_API_KEY or OPENAI_API_KEY")
	}
	if _, err := a.models.resolver(s.Config).Resolve(s.Model); err != nil {
		return fmt.Errorf("model %s: %w", s.Model, err)
	}
	return nil
}

// checkEnvBaseURLs validates the providers' base-URL variables
// (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ...) at start: a value without
// http:// or https:// would otherwise fail every request and be retried.
func (a *App) checkEnvBaseURLs() error {
	for _, name := range a.Catalog.Presets() {
		p, _ := a.Catalog.Preset(name)
		if p.BaseURLEnv == "" {
			continue
		}
		if v := a.opts.Getenv(p.BaseURLEnv); v != "" {
			if err := config.CheckBaseURL(v); err != nil {
				return &config.Error{File: "environment", Field: p.BaseURLEnv, Msg: err.Error()}
			}
		}
	}
	return nil
}

func (a *App) home() string {
	if h := a.opts.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Resolve implements session.Resolver: every session the Manager opens,
// from any entry point, passes through ResolveSettings before it is stored.
func (w *wiring) Resolve(ctx context.Context, rec store.Session, checkModel bool) (session.Resolved, error) {
	req := SettingsRequest{Cwd: rec.Cwd, Model: rec.Model, Runtime: rec.Runtime, Mode: rec.Mode, CheckModel: checkModel}
	s, err := w.app.ResolveSettings(ctx, req)
	if err != nil {
		return session.Resolved{}, err
	}
	return session.Resolved{Model: s.Model, Runtime: s.Runtime, Mode: s.Mode, MaxTurns: s.MaxTurns, MaxBudgetUSD: s.MaxBudgetUSD,
		FallbackModels: s.FallbackModels, Equip: func(ctx context.Context, l *session.Live) (session.Equipment, error) {
			return w.equip(ctx, l, s)
		}}, nil
}
