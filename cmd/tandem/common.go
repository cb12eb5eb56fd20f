package main

import (
	"fmt"
	"io"
	"time"

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

// sayStaleCatalog tells, once a day, at the start of a session's command
// (run, serve, the TUI), that the binary's model catalog is old.
func sayStaleCatalog(w io.Writer, a *app.App) {
	if n := a.StaleCatalogNotice(time.Now()); n != "" {
		fmt.Fprintf(w, "tandem: %s\n", n)
	}
}
