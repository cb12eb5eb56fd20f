package main

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/claudecode"
)

func newDoctorCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use: "doctor", Short: "Check tandem's setup: config, database, providers, ripgrep, the Claude Code CLI", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\nconfig folder: %s\ndata folder:   %s\ndatabase:      %s\n", version(), a.Paths.ConfigDir, a.Paths.DataDir, a.Store.Path())
			cwd, _ := absCwd("")
			cfg, err := a.ConfigFor(cwd)
			if err != nil {
				fmt.Fprintf(w, "config:        ERROR %v\n", err)
			} else {
				fmt.Fprintf(w, "config files:  %v\n", cfg.Sources)
				fmt.Fprintf(w, "default model: %s\n", firstNonEmpty(a.DefaultModel(cfg), "(none: set --model, \"model\" in config, or an API key)"))
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
			return nil
		}),
	}
}
