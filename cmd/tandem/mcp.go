package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/config"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	// The paths are resolved once flags are parsed: --home is unknown while
	// the command tree is built. The environment's paths serve the help.
	paths, _ := config.ResolvePaths("", os.Getenv)
	return newMCPCommand(mcpDeps{UserConfig: paths.UserFile(), DataDir: paths.DataDir,
		Stdout: os.Stdout, Stderr: os.Stderr, ClientVersion: version(),
		Resolve: func(d *mcpDeps) error {
			paths, err := config.ResolvePaths(g.home, os.Getenv)
			if err != nil {
				return err
			}
			cwd, err := absCwd("")
			if err != nil {
				return err
			}
			d.UserConfig, d.DataDir, d.ProjectDir = paths.UserFile(), paths.DataDir, cwd
			return nil
		}})
}
