// Package app wires tandem's parts together from configuration: it opens
// the store, resolves models to providers, and equips each session with
// tools, a permission engine, MCP servers and a runtime. The CLI and the
// HTTP server both start from an App, so they behave the same.
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/telemetry"
	"github.com/tandem-agent/tandem/internal/trust"
)

// Options say where tandem's files are and how the caller interacts.
type Options struct {
	Home   string // --home; empty: TANDEM_HOME or XDG folders
	Getenv func(string) string
	// Version is tandem's version, sent to MCP servers as the client version.
	Version string
	// SandboxExe is the tandem binary sandboxed commands are started
	// through (its hidden __sandbox-exec role); empty: this program's own
	// (os.Executable), which must then be tandem.
	SandboxExe string
	// Sandbox is "on" or "off" from the command line (--sandbox,
	// --no-sandbox): it wins over the config files for every session this
	// App opens; "": the config decides.
	Sandbox string
	// Stderr receives warnings (e.g. an MCP server that failed to start).
	Stderr io.Writer
	// TrustProject treats every folder this process opens as trusted
	// (--trust-project or TANDEM_TRUST_PROJECT=1, for scripted use), as
	// `tandem trust` would, without recording anything.
	TrustProject bool
	// SettingSources are the Claude Code setting sources a host asked for
	// (--setting-sources, the Agent SDK's settingSources): nil is tandem's
	// own rule (every file read, an untrusted folder's gated). Otherwise
	// "project" means the host chose the folder's settings (trusted for
	// this process), and without it no project file is read at all (no
	// .tandem/config.json, .claude/settings*.json, .mcp.json, skills,
	// commands, agents or CLAUDE.md); without "user", ~/.claude/settings.json
	// is not read. docs/claude-code-cli.md.
	SettingSources []string
	// HostAgents returns the sub-agents the program driving tandem gave it
	// (Claude Code's --agents, the Agent SDK's agents option in
	// initialize; subagent.ParseHost validated them): the strongest of a
	// session's agents, not gated by folder trust. Called when a session
	// is equipped and a folder's extensions are listed; nil: none.
	HostAgents func() []*subagent.Def
	// PluginDirs are plugin folders loaded for this process only
	// (--plugin-dir), besides the installed plugins (plugins.go).
	PluginDirs []string
	// RequireTrust refuses a session in an untrusted folder whose project
	// files set what only a trusted folder may (--require-trust), rather
	// than leaving those settings out.
	RequireTrust bool
	// Providers are model providers given in code (an embedding program's
	// own), by name: "NAME/model" specs reach them. They win over the
	// catalog's presets and the config's entries of the same name.
	Providers map[string]provider.Provider
	// ConfigFile is the user config file in place of the home's
	// config.json ("" : that one).
	ConfigFile string
	// Database is the store's URL (`tandem serve --database`); it wins
	// over TANDEM_DATABASE_URL and the user config's "database". Empty
	// with neither: the SQLite file in the data folder.
	Database string
}

// App is one configured tandem.
type App struct {
	Paths   config.Paths
	User    *config.Config // the user file with the environment applied
	Store   store.Store
	Catalog *catalog.Catalog
	Manager *session.Manager
	// Trust lists the folders the user trusts (`tandem trust`).
	Trust *trust.Store
	// Checkpoints records and rewinds sessions' checkpoints.
	Checkpoints *checkpoint.Service
	opts        Options
	models      *models
	tel         *telemetry.Telemetry // nil: telemetry off (telemetry.go)
}

// Open loads the user configuration and opens the store.
func Open(opts Options) (*App, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	switch opts.Getenv("TANDEM_TRUST_PROJECT") {
	case "1", "true":
		// For front ends whose flags are not tandem's (ACP editors, the
		// Claude Code drop-in driven by an Agent SDK). The environment is
		// the user's own, like the API keys; a project cannot set it.
		opts.TrustProject = true
	}
	if opts.SettingSources != nil && slices.Contains(opts.SettingSources, "project") {
		opts.TrustProject = true
	}
	paths, err := config.ResolvePaths(opts.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	if opts.ConfigFile != "" {
		if paths.File, err = filepath.Abs(opts.ConfigFile); err != nil {
			return nil, fmt.Errorf("config file %q: %w", opts.ConfigFile, err)
		}
	}
	user, err := config.Load(paths.UserFile(), "")
	if err != nil {
		return nil, err
	}
	if err := user.ApplyEnv(opts.Getenv); err != nil {
		return nil, err
	}
	cat, err := catalog.Load()
	if err != nil {
		return nil, fmt.Errorf("load model catalog: %w", err)
	}
	dbURL := user.Database
	if opts.Database != "" {
		dbURL = opts.Database
	}
	st, err := storeopen.Open(context.Background(), dbURL, storeopen.Options{DefaultFile: paths.DBFile()})
	if err != nil {
		return nil, err
	}
	a := &App{Paths: paths, User: user, Store: st, Catalog: cat, Trust: trust.NewStore(paths.DataDir), opts: opts}
	a.Trust.Home = a.home()
	a.models = newModels(cat, opts.Getenv)
	a.models.custom = opts.Providers
	a.models.install = &installID{dir: paths.DataDir}
	if a.tel, err = startTelemetry(opts, user, paths.UserFile(), a.models.install); err != nil {
		_ = st.Close()
		return nil, err
	}
	a.Manager = session.NewManager(st, &wiring{app: a}, paths.DataDir)
	a.Checkpoints = newCheckpoints(st, paths.DataDir)
	return a, nil
}

// DatabaseURL is the store's URL as chosen (Options.Database, else the
// user config's `database`); "" is the default SQLite file.
func (a *App) DatabaseURL() string {
	if a.opts.Database != "" {
		return a.opts.Database
	}
	return a.User.Database
}

// Close flushes telemetry and releases the store.
func (a *App) Close() error {
	terr := a.closeTelemetry()
	if err := a.Store.Close(); err != nil {
		return err
	}
	return terr
}

// ConfigFor returns the configuration in force for a working folder: the
// user file, the folder's project file, then the environment.
// An untrusted folder's project file comes without what needs trust.
func (a *App) ConfigFor(cwd string) (*config.Config, error) {
	f, err := a.openFolder(cwd)
	if err != nil {
		return nil, err
	}
	return f.cfg, nil
}

// DefaultModel picks the model when neither flag nor session names one:
// the config's, else the first provider with a key in the environment.
func (a *App) DefaultModel(c *config.Config) string {
	if c != nil && c.Model != "" {
		return c.Model
	}
	return a.models.defaultFromEnv()
}

// CheckModel resolves a model spec with the settings in force for cwd, so
// a typo or a missing key is reported before a session is created.
func (a *App) CheckModel(spec, cwd string) error {
	cfg, err := a.ConfigFor(cwd)
	if err != nil {
		return err
	}
	_, err = a.models.resolver(cfg).Resolve(spec)
	return err
}

// projectFiles says whether the project's own files are read at all (a
// host's --setting-sources without "project" says no).
func (a *App) projectFiles() bool {
	return a.opts.SettingSources == nil || slices.Contains(a.opts.SettingSources, "project")
}

// userClaudeSettings says whether the user's Claude Code files are read:
// ~/.claude/settings.json, the skills, commands and agents under the home
// folder, ~/.claude/CLAUDE.md (a host's --setting-sources without "user"
// says no).
func (a *App) userClaudeSettings() bool {
	return a.opts.SettingSources == nil || slices.Contains(a.opts.SettingSources, "user")
}
