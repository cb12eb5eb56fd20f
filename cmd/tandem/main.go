// Command tandem is the CLI: it only parses flags and wires the internal
// packages together (internal/app does the wiring shared with the server).
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exitError carries an exit status without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	os.Exit(run())
}

func run() int {
	defer startProfile()()
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(os.Stderr, "tandem:", err)
		return 1
	}
	return 0
}

// globalFlags are shared by every command.
type globalFlags struct {
	home string
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:           "tandem",
		Short:         "A coding agent for any LLM provider",
		Long:          "tandem is a coding agent: point it at a folder, give it an API key for any LLM provider, and it reads, edits and runs commands there, asking before it does what it may not.",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&g.home, "home", "", "folder for tandem's config and data (default: TANDEM_HOME, else XDG folders)")
	root.AddCommand(newRunCmd(g), newSessionsCmd(g), newModelsCmd(g), newDoctorCmd(g), newMCPCmd(g), newServeCmd(g), newConfigCmd(g), newACPCmd(g))
	return root
}
