package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/trust"
)

// doctorReport is what doctor found; --json prints it as is.
type doctorReport struct {
	Version   string `json:"version"`
	ConfigDir string `json:"config_dir"`
	DataDir   string `json:"data_dir"`
	Database  string `json:"database"`
	// DatabaseBackend is sqlite or postgres; DatabaseSchema the migration
	// level applied and the one this binary knows ("8/8"); DatabaseServer
	// the server's version (PostgreSQL); DatabaseDetails further facts.
	DatabaseBackend string   `json:"database_backend"`
	DatabaseSchema  string   `json:"database_schema,omitempty"`
	DatabaseServer  string   `json:"database_server,omitempty"`
	DatabaseDetails []string `json:"database_details,omitempty"`
	// DatabaseCheck is ok, corrupt or error; DatabaseProblems says what.
	DatabaseCheck    string   `json:"database_check"`
	DatabaseProblems []string `json:"database_problems,omitempty"`
	ConfigFiles      []string `json:"config_files,omitempty"`
	ConfigError      string   `json:"config_error,omitempty"`
	Untrusted        string   `json:"untrusted,omitempty"`
	DefaultModel     string   `json:"default_model,omitempty"`
	FallbackModels   []string `json:"fallback_models,omitempty"`
	// ModelErrors name default and fallback models a session cannot use:
	// retired (sessions refuse them) or missing from their provider's live
	// list; any makes doctor exit 1. ModelWarnings name legacy and
	// deprecated ones, which work for now.
	ModelErrors   []string          `json:"model_errors,omitempty"`
	ModelWarnings []string          `json:"model_warnings,omitempty"`
	Runtime       string            `json:"runtime,omitempty"`
	Mode          string            `json:"permission_mode,omitempty"`
	TrustedBy     string            `json:"trusted_by,omitempty"`
	Ripgrep       string            `json:"ripgrep,omitempty"`
	Providers     []providers.Probe `json:"providers"`
	ClaudeCode    claudecode.Report `json:"claude_code"`
	ClaudeCodeCfg string            `json:"claude_code_config_error,omitempty"`
	settings      *app.Settings     // nil when the settings did not resolve
}

func newDoctorCmd(g *globalFlags) *cobra.Command {
	var asJSON, offline bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check tandem's setup: config, database, providers (live), ripgrep, the Claude Code CLI",
		Long: "Check tandem's setup. Every provider that is configured or has a key in the environment gets one " +
			"live request (its model list, or a one-token call): reachability, authentication, whether the " +
			"default and fallback models exist, and the latency. A failing provider makes doctor exit 1.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr()})
			if err != nil {
				// The store failing to open is what doctor is for: say so
				// on stdout with the way out, not just as an error.
				hint := dbHint
				var oe *storeopen.OpenError
				if errors.As(err, &oe) && oe.Kind == storeopen.Postgres {
					hint = pgHint
				}
				fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "%s\nERROR %v\n%s", version(), err, hint)
				return exitError{code: 1}
			}
			defer a.Close()
			rep := collectDoctor(cmd, a, offline)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				// config errors quote a project's files
				rep.print(termsafe.Writer(cmd.OutOrStdout()), offline)
			}
			if rep.DatabaseCheck == "corrupt" {
				return exitError{code: 1}
			}
			for _, p := range rep.Providers {
				if !p.OK {
					return exitError{code: 1}
				}
			}
			return exitIf(len(rep.ModelErrors) > 0)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&offline, "offline", false, "skip the live provider checks")
	return cmd
}

// dbHint says what to do about a damaged database.
const dbHint = `  The database holds tandem's sessions. Stop every tandem process and keep a copy of the
  file; then recover what is readable with ` + "`sqlite3 tandem.db .recover > recovered.sql`" + `, or move the
  file aside (tandem starts a new, empty one).
`

// pgHint says where a PostgreSQL database comes from when it fails to open.
const pgHint = `  The database is PostgreSQL, named by --database, TANDEM_DATABASE_URL or "database" in the user
  config; the error above says what to fix (docs/postgres.md). Without any of them tandem uses its
  SQLite file.
`

func collectDoctor(cmd *cobra.Command, a *app.App, offline bool) *doctorReport {
	rep := &doctorReport{Version: version(), ConfigDir: a.Paths.ConfigDir, DataDir: a.Paths.DataDir,
		Providers: []providers.Probe{}, DatabaseCheck: "ok"}
	if info, err := a.Store.Info(cmd.Context()); err != nil {
		rep.DatabaseCheck, rep.DatabaseProblems = "error", []string{err.Error()}
	} else {
		rep.Database, rep.DatabaseBackend, rep.DatabaseServer, rep.DatabaseDetails = info.Location, info.Backend, info.Server, info.Details
		rep.DatabaseSchema = fmt.Sprintf("%d/%d", info.Schema, info.SchemaLatest)
	}
	switch problems, err := a.Store.Check(cmd.Context()); {
	case err != nil:
		rep.DatabaseCheck, rep.DatabaseProblems = "error", []string{err.Error()}
	case len(problems) > 0:
		rep.DatabaseCheck, rep.DatabaseProblems = "corrupt", problems
	}
	// The same resolution a session gets, so doctor reports what `tandem
	// run` here would do (or refuse).
	s, err := a.ResolveSettings(cmd.Context(), app.SettingsRequest{})
	var ue *trust.UntrustedError
	var cfg *config.Config
	switch {
	case errors.As(err, &ue):
		rep.Untrusted = ue.Error()
	case err != nil:
		rep.ConfigError = err.Error()
	default:
		rep.settings, cfg = s, s.Config
		rep.ConfigFiles, rep.DefaultModel, rep.FallbackModels = cfg.Sources, s.Model, s.FallbackModels
		rep.Runtime, rep.Mode = string(s.Runtime), string(s.Mode)
		if s.Trusted {
			rep.TrustedBy = s.TrustRoot
		} else if len(s.LeftOut) > 0 {
			rep.Untrusted = trust.Notice(s.Cwd, s.LeftOut)
		}
		if !offline {
			rep.Providers = a.CheckProviders(cmd.Context(), s)
		}
		rep.ModelErrors, rep.ModelWarnings = modelProblems(a, s, rep.Providers)
	}
	if p, err := exec.LookPath("rg"); err == nil {
		rep.Ripgrep = p
	}
	var cc claudecode.Config
	if cfg != nil {
		if cc, err = app.ClaudeCodeConfig(cfg); err != nil {
			rep.ClaudeCodeCfg = err.Error()
		}
	}
	rep.ClaudeCode = claudecode.Doctor(cc)
	return rep
}

// modelProblems judges the default and fallback models: their lifecycle
// today (the catalog's dates), and whether their provider's live list, when
// it was read, has them.
func modelProblems(a *app.App, s *app.Settings, probes []providers.Probe) (errs, warnings []string) {
	for i, spec := range append([]string{s.Model}, s.FallbackModels...) {
		if spec == "" {
			continue
		}
		role := "default model"
		if i > 0 {
			role = "fallback model"
		}
		switch notice, err := a.ModelLifecycle(spec); {
		case err != nil:
			errs = append(errs, fmt.Sprintf("%s %s: %v", role, spec, err))
		case notice != "":
			warnings = append(warnings, fmt.Sprintf("%s %s: %s", role, spec, notice))
		}
	}
	for _, p := range probes {
		if p.Model != "" && p.ModelAvailable != nil && !*p.ModelAvailable {
			errs = append(errs, fmt.Sprintf("model %s is not in %s's live model list: check the id with `tandem models --refresh`", p.Model, p.Provider))
		}
	}
	return errs, warnings
}

func (rep *doctorReport) print(w io.Writer, offline bool) {
	fmt.Fprintf(w, "%s\nconfig folder: %s\ndata folder:   %s\ndatabase:      %s\n", rep.Version, rep.ConfigDir, rep.DataDir, rep.Database)
	if rep.DatabaseBackend != "" {
		fmt.Fprintf(w, "store:         %s, schema %s", rep.DatabaseBackend, rep.DatabaseSchema)
		if rep.DatabaseServer != "" {
			fmt.Fprintf(w, ", server %s", rep.DatabaseServer)
		}
		fmt.Fprintln(w)
		for _, d := range rep.DatabaseDetails {
			fmt.Fprintf(w, "               %s\n", d)
		}
	}
	switch rep.DatabaseCheck {
	case "error":
		fmt.Fprintf(w, "database check: ERROR %s\n", rep.DatabaseProblems[0])
	case "corrupt":
		fmt.Fprintf(w, "database check: CORRUPT (%d problems; first: %s)\n%s", len(rep.DatabaseProblems), firstLine(rep.DatabaseProblems[0], 200), dbHint)
	default:
		fmt.Fprintln(w, "database check: ok")
	}
	if rep.Untrusted != "" {
		fmt.Fprintf(w, "trust:         NOT TRUSTED: %s\n", rep.Untrusted)
	}
	switch {
	case rep.ConfigError != "" || rep.settings == nil:
		if rep.ConfigError == "" {
			break
		}
		fmt.Fprintf(w, "config:        ERROR %s\n", rep.ConfigError)
	default:
		fmt.Fprintf(w, "config files:  %v\n", rep.ConfigFiles)
		fmt.Fprintf(w, "default model: %s\n", firstNonEmpty(rep.DefaultModel, "(none: set --model, \"model\" in config, or an API key)"))
		if len(rep.FallbackModels) > 0 {
			fmt.Fprintf(w, "fallbacks:     %v\n", rep.FallbackModels)
		}
		for _, p := range rep.ModelErrors {
			fmt.Fprintf(w, "model:         ERROR %s\n", p)
		}
		for _, p := range rep.ModelWarnings {
			fmt.Fprintf(w, "model:         WARNING %s\n", p)
		}
		fmt.Fprintf(w, "runtime:       %s\npermissions:   %s mode\n", rep.Runtime, rep.Mode)
		if rep.TrustedBy != "" {
			fmt.Fprintf(w, "trust:         trusted (by %s)\n", rep.TrustedBy)
		} else if rep.Untrusted == "" {
			fmt.Fprintln(w, "trust:         not trusted (nothing in the project files needs it)")
		}
	}
	if rep.Ripgrep != "" {
		fmt.Fprintf(w, "ripgrep:       %s\n", rep.Ripgrep)
	} else {
		fmt.Fprintln(w, "ripgrep:       not found (Grep uses its built-in Go search)")
	}
	if rep.ClaudeCodeCfg != "" {
		fmt.Fprintf(w, "claude_code:   ERROR %s\n", rep.ClaudeCodeCfg)
	}
	printProbes(w, rep, offline)
	fmt.Fprintf(w, "\nClaude Code runtime:\n%s", rep.ClaudeCode.String())
	if !rep.ClaudeCode.OK() {
		fmt.Fprintln(os.Stderr, "\n(the claude-code runtime is optional; the native runtime needs only an API key)")
	}
}

func printProbes(w io.Writer, rep *doctorReport, offline bool) {
	switch {
	case rep.settings == nil:
		return
	case offline:
		fmt.Fprintln(w, "\nProviders: not checked (--offline)")
		return
	case len(rep.Providers) == 0:
		fmt.Fprintln(w, "\nProviders: none set up (no API key in the environment, none in the config)")
		return
	}
	fmt.Fprintln(w, "\nProviders:")
	for _, p := range rep.Providers {
		state := "ok"
		switch {
		case p.OK:
		case !p.Reachable:
			state = "UNREACHABLE"
		case !p.Authenticated:
			state = "AUTH REFUSED"
		default:
			state = "FAILED"
		}
		line := fmt.Sprintf("  %-12s %-13s %s (%s, %d ms)", p.Provider, state, p.BaseURL, p.Method, p.LatencyMS)
		if p.Models > 0 {
			line += fmt.Sprintf(", %d models", p.Models)
		}
		if p.Model != "" && p.ModelAvailable != nil {
			if *p.ModelAvailable {
				line += ", " + p.Model + " available"
			} else {
				line += ", " + p.Model + " NOT available"
			}
		}
		fmt.Fprintln(w, line)
		if p.Error != "" {
			fmt.Fprintf(w, "  %-12s %s\n", "", p.Error)
		}
	}
}
