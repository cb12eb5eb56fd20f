package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/config"
)

func newConfigCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show configuration files and the JSON schema"}
	cmd.AddCommand(&cobra.Command{
		Use: "schema", Short: "Print the JSON schema of tandem's config files", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(config.Schema())
			return err
		},
	}, &cobra.Command{
		Use: "path", Short: "Print the config files tandem reads for this folder", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			cwd, err := absCwd("")
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user:    %s\nproject: %s\n", a.Paths.UserFile(), config.ProjectFile(cwd))
			return nil
		}),
	})
	return cmd
}
