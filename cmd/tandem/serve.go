package main

import (
	"github.com/spf13/cobra"
)

func newServeCmd(g *globalFlags) *cobra.Command {
	return newServeCommand(g)
}
