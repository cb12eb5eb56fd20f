package main

import (
	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/session"
)

// withApp opens the App for a command and closes it after.
func withApp(g *globalFlags, fn func(*cobra.Command, *app.App, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr()})
		if err != nil {
			return err
		}
		defer a.Close()
		return fn(cmd, a, args)
	}
}

func absCwd(dir string) (string, error) { return session.ResolveDir(dir) }
