package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp/mcpcmd"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	paths, err := config.ResolvePaths(g.home, os.Getenv)
	cwd, _ := absCwd("")
	cmd := mcpcmd.NewCommand(mcpcmd.Deps{UserConfig: paths.UserFile(), ProjectDir: cwd, DataDir: paths.DataDir,
		Stdout: os.Stdout, Stderr: os.Stderr, ClientVersion: version()})
	if err != nil {
		cmd.RunE = func(*cobra.Command, []string) error { return err }
	}
	return cmd
}
