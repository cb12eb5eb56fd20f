package main

import (
	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/acp"
	"github.com/tandem-agent/tandem/internal/app"
)

func newACPCmd(g *globalFlags) *cobra.Command {
	var trustProject, requireTrust bool
	var sb sandboxFlags
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Run as an Agent Client Protocol agent on stdin/stdout (for editors)",
		Long: "Speak the Agent Client Protocol (JSON-RPC over stdin and stdout) so an editor such as Zed runs tandem as its agent. " +
			"Sessions are tandem's own: they resume with `tandem run --resume` and show in the web UI. Diagnostics go to stderr.",
		Example: "  # Zed settings.json\n  \"agent_servers\": {\"tandem\": {\"command\": \"tandem\", \"args\": [\"acp\"]}}",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sbMode, err := sb.mode()
			if err != nil {
				return err
			}
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			return acp.Serve(ctx, acp.Options{
				Version: version(),
				Log:     cmd.ErrOrStderr(),
				OpenApp: func() (*app.App, error) {
					return app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr(), TrustProject: trustProject, RequireTrust: requireTrust, Sandbox: sbMode})
				},
			}, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	// An editor cannot answer a trust prompt: trust folders with `tandem
	// trust DIR`, or pass this for every folder the editor opens.
	cmd.Flags().BoolVar(&trustProject, "trust-project", false, "trust the project files of every folder this process opens (see `tandem trust`)")
	sb.add(cmd.Flags())
	cmd.Flags().BoolVar(&requireTrust, "require-trust", false, "refuse sessions in untrusted folders whose project files set what needs trust")
	return cmd
}
