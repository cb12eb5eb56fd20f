package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
)

type trustFlags struct{ revoke, list, broad bool }

func newTrustCmd(g *globalFlags) *cobra.Command {
	f := &trustFlags{}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a folder's project files (or --revoke, --list)",
		Long: "A project's own files (.tandem/config.json, .claude/settings.json, .claude/settings.local.json, .mcp.json) " +
			"arrive with a cloned repository. Settings in them that could send your API keys elsewhere, run commands or loosen " +
			"a guard (provider base_url, headers and api_key_env, new providers, hooks, env, allow rules, ${VAR} in MCP entries, ...) " +
			"are left out (and named) until you trust the folder. / and your home folder need --broad. Trusting a folder covers its subfolders; symlinks are resolved. " +
			"DIR defaults to the current folder. See docs/permissions.md.",
		Example: "  tandem trust\n  tandem trust ~/src/project\n  tandem trust --list\n  tandem trust --revoke ~/src/project",
		Args:    cobra.MaximumNArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return trustCmd(cmd, a, f, args)
		}),
	}
	cmd.Flags().BoolVar(&f.revoke, "revoke", false, "stop trusting DIR")
	cmd.Flags().BoolVar(&f.list, "list", false, "list the trusted folders")
	cmd.Flags().BoolVar(&f.broad, "broad", false, "confirm trusting / or your home folder (every repository under it)")
	return cmd
}

func trustCmd(cmd *cobra.Command, a *app.App, f *trustFlags, args []string) error {
	w := cmd.OutOrStdout()
	if f.list {
		if f.revoke || len(args) > 0 {
			return fmt.Errorf("--list takes no folder and no --revoke")
		}
		list, err := a.TrustedFolders()
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(w, "no trusted folders (trust one with `tandem trust DIR`)")
		}
		for _, d := range list {
			fmt.Fprintln(w, d)
		}
		return nil
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
	}
	if f.revoke {
		if dir == "" {
			if dir, _ = absCwd(""); dir == "" {
				return fmt.Errorf("--revoke: name the folder")
			}
		}
		real, stillBy, err := a.RevokeFolder(dir)
		if err != nil {
			return err
		}
		if stillBy != "" {
			fmt.Fprintf(w, "removed %s from the trusted folders, but it is still trusted: it is inside the trusted folder %s (revoke that with `tandem trust --revoke %s`)\n", real, stillBy, stillBy)
			return nil
		}
		fmt.Fprintf(w, "no longer trusted: %s\n", real)
		return nil
	}
	if dir == "" {
		dir = "."
	}
	trustDir := a.TrustFolder
	if f.broad {
		trustDir = a.TrustBroadFolder
	}
	real, err := trustDir(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "trusted: %s (and its subfolders)\n", real)
	if st, err := a.TrustStatus(real); err == nil && len(st.NeedsTrust) > 0 {
		fmt.Fprintln(w, "its project files now may:")
		for _, x := range st.NeedsTrust {
			fmt.Fprintf(w, "  %s\n", x)
		}
	}
	return nil
}
