package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/trust"
)

func newDoctorCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use: "doctor", Short: "Check tandem's setup: config, database, providers, ripgrep, the Claude Code CLI", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr()})
			if err != nil {
				// The store failing to open is what doctor is for: say so
				// on stdout with the way out, not just as an error.
				fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "%s\nERROR %v\n%s", version(), err, dbHint)
				return exitError{code: 1}
			}
			defer a.Close()
			return doctor(cmd, a)
		},
	}
}

// dbHint says what to do about a damaged database.
const dbHint = `  The database holds tandem's sessions. Stop every tandem process and keep a copy of the
  file; then recover what is readable with ` + "`sqlite3 tandem.db .recover > recovered.sql`" + `, or move the
  file aside (tandem starts a new, empty one).
`

func doctor(cmd *cobra.Command, a *app.App) error {
	w := termsafe.Writer(cmd.OutOrStdout()) // config errors quote a project's files
	fmt.Fprintf(w, "%s\nconfig folder: %s\ndata folder:   %s\ndatabase:      %s\n", version(), a.Paths.ConfigDir, a.Paths.DataDir, a.Store.Path())
	corrupt := false
	switch problems, err := a.Store.Check(cmd.Context()); {
	case err != nil:
		fmt.Fprintf(w, "database check: ERROR %v\n", err)
	case len(problems) > 0:
		corrupt = true
		fmt.Fprintf(w, "database check: CORRUPT (%d problems; first: %s)\n%s", len(problems), firstLine(problems[0], 200), dbHint)
	default:
		fmt.Fprintln(w, "database check: ok")
	}
	// The same resolution a session gets, so doctor reports what
	// `tandem run` here would do (or refuse).
	s, err := a.ResolveSettings(cmd.Context(), app.SettingsRequest{})
	var ue *trust.UntrustedError
	var cfg *config.Config
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(w, "trust:         NOT TRUSTED: %v\n", ue)
	case err != nil:
		fmt.Fprintf(w, "config:        ERROR %v\n", err)
	default:
		cfg = s.Config
		fmt.Fprintf(w, "config files:  %v\n", cfg.Sources)
		fmt.Fprintf(w, "default model: %s\n", firstNonEmpty(s.Model, "(none: set --model, \"model\" in config, or an API key)"))
		fmt.Fprintf(w, "runtime:       %s\npermissions:   %s mode\n", s.Runtime, s.Mode)
		if s.Trusted {
			fmt.Fprintf(w, "trust:         trusted (by %s)\n", s.TrustRoot)
		} else {
			fmt.Fprintln(w, "trust:         not trusted (nothing in the project files needs it)")
		}
	}
	if p, err := exec.LookPath("rg"); err == nil {
		fmt.Fprintf(w, "ripgrep:       %s\n", p)
	} else {
		fmt.Fprintln(w, "ripgrep:       not found (Grep uses its built-in Go search)")
	}
	var cc claudecode.Config
	if cfg != nil {
		if cc, err = app.ClaudeCodeConfig(cfg); err != nil {
			fmt.Fprintf(w, "claude_code:   ERROR %v\n", err)
		}
	}
	rep := claudecode.Doctor(cc)
	fmt.Fprintf(w, "\nClaude Code runtime:\n%s", rep.String())
	if !rep.OK() {
		fmt.Fprintln(os.Stderr, "\n(the claude-code runtime is optional; the native runtime needs only an API key)")
	}
	if corrupt {
		return exitError{code: 1}
	}
	return nil
}
