package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// loadServer finds the configured server name for login, logout and test.
func loadServer(deps *mcpDeps, name string) (mcp.ServerConfig, error) {
	servers, _, errs := mcp.LoadAll(deps.paths())
	cfg, ok := servers[name]
	if !ok {
		for _, e := range errs {
			if strings.Contains(e.Error(), "mcpServers."+name) {
				return cfg, e
			}
		}
		return cfg, fmt.Errorf("no mcp server named %q (see `tandem mcp list`)", name)
	}
	return cfg, nil
}

func loginCmd(deps *mcpDeps) *cobra.Command {
	var noBrowser bool
	c := &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to an http or sse MCP server with OAuth (opens the browser)",
		Long: `Sign in to a remote MCP server that asks for OAuth: tandem discovers the
server's authorization server, registers itself if needed, and opens the
authorization page (or prints its URL) with the redirect to a listener on
127.0.0.1. The token is kept in tandem's data folder (user-only files), is
refreshed before it expires, and is used by every session.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			cfg, err := loadServer(deps, name)
			if err != nil {
				return err
			}
			if err := checkTrust(deps, name, cfg); err != nil {
				return err
			}
			out := termsafe.Writer(deps.Stdout)
			open := func(u string) {
				fmt.Fprintf(out, "Open this URL to sign in to %s:\n\n  %s\n\nWaiting for the browser (Ctrl-C to stop)...\n", name, u)
				if !noBrowser {
					openBrowser(u)
				}
			}
			err = mcp.Login(cmd.Context(), name, cfg, mcp.LoginOptions{Store: mcp.NewTokenStore(deps.DataDir), Open: open,
				ClientName: "tandem", ClientVersion: deps.ClientVersion, LookupEnv: deps.LookupEnv})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "Signed in to %s.\n", name)
			return nil
		},
	}
	c.Flags().BoolVar(&noBrowser, "no-browser", false, "print the URL only")
	return c
}

func logoutCmd(deps *mcpDeps) *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the OAuth sign-in of an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadServer(deps, args[0])
			if err != nil {
				return err
			}
			if err := mcp.NewTokenStore(deps.DataDir).Delete(args[0], cfg.URL); err != nil {
				return fmt.Errorf("forget the sign-in of %s: %w", args[0], err)
			}
			fmt.Fprintf(deps.Stdout, "Signed out of %s.\n", args[0])
			return nil
		},
	}
}

// openBrowser tries the desktop's URL opener; the URL is printed either way.
func openBrowser(u string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	if p, err := exec.LookPath(name); err == nil {
		cmd := exec.Command(p, u)
		if cmd.Start() == nil {
			go func() { _ = cmd.Wait() }()
		}
	}
}
