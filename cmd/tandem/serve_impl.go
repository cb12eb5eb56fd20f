package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newServeCommand is replaced when the server package lands.
func newServeCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{Use: "serve", Short: "HTTP API and web UI", RunE: func(*cobra.Command, []string) error {
		return fmt.Errorf("serve is not wired yet")
	}}
}
