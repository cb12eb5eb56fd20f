package main

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/plugin"
)

// newPluginCmd is `tandem plugin`: Claude Code plugins and marketplaces
// (docs/plugins.md).
func newPluginCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Aliases: []string{"plugins"}, Short: "Claude Code plugins: marketplaces, install, enable, disable, uninstall, update"}
	mk := &cobra.Command{Use: "marketplace", Short: "Add, list, update and remove plugin marketplaces"}
	mk.AddCommand(&cobra.Command{
		Use: "add PATH|GIT_URL", Short: "Add a marketplace: a folder or a git repository with .claude-plugin/marketplace.json", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			m, err := a.Plugins().AddMarketplace(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "added marketplace %s (%d plugins): install one with `tandem plugin install NAME@%s`\n", m.Name, len(m.Plugins), m.Name)
			return nil
		}),
	}, &cobra.Command{
		Use: "list", Short: "List the added marketplaces and what they offer", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			st, err := a.Plugins().Load()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(st.Marketplaces) == 0 {
				fmt.Fprintln(out, "no marketplaces: add one with `tandem plugin marketplace add PATH|GIT_URL`")
			}
			for _, name := range st.MarketplaceNames() {
				rec := st.Marketplaces[name]
				fmt.Fprintf(out, "%s\t%s\n", name, rec.Source)
				m, err := plugin.ReadMarketplace(rec.Dir)
				if err != nil {
					fmt.Fprintf(out, "  (cannot read it: %v)\n", err)
					continue
				}
				for _, e := range m.Plugins {
					fmt.Fprintf(out, "  %s@%s\t%s\n", e.Name, name, e.Description)
				}
			}
			return nil
		}),
	}, &cobra.Command{
		Use: "update NAME", Short: "Pull a marketplace cloned from git again", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.Plugins().UpdateMarketplace(cmd.Context(), args[0])
		}),
	}, &cobra.Command{
		Use: "remove NAME", Aliases: []string{"rm"}, Short: "Remove a marketplace (its installed plugins stay)", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.Plugins().RemoveMarketplace(args[0])
		}),
	})
	var asJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List installed plugins (and Claude Code's not yet imported)", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			return listPlugins(cmd, a, asJSON)
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(mk, list, &cobra.Command{
		Use: "install NAME@MARKETPLACE", Aliases: []string{"i"}, Short: "Install a plugin from an added marketplace; says what it enables", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			p, err := a.Plugins().Install(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			sayInstalled(cmd, "installed", p)
			return nil
		}),
	}, &cobra.Command{
		Use: "update NAME@MARKETPLACE", Short: "Pull the plugin's marketplace and install the plugin again", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			p, err := a.Plugins().Update(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			sayInstalled(cmd, "updated", p)
			return nil
		}),
	}, &cobra.Command{
		Use: "enable NAME@MARKETPLACE", Short: "Enable an installed plugin", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.Plugins().SetEnabled(args[0], true)
		}),
	}, &cobra.Command{
		Use: "disable NAME@MARKETPLACE", Short: "Disable an installed plugin (it stays installed)", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.Plugins().SetEnabled(args[0], false)
		}),
	}, &cobra.Command{
		Use: "uninstall NAME@MARKETPLACE", Aliases: []string{"remove", "rm"}, Short: "Uninstall a plugin", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			return a.Plugins().Uninstall(args[0])
		}),
	}, &cobra.Command{
		Use: "import", Short: "Use the plugins installed for Claude Code (~/.claude/plugins) in tandem too", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			home, _ := os.UserHomeDir()
			ps, errs := a.Plugins().ImportClaude(home)
			for _, p := range ps {
				sayInstalled(cmd, "imported", p)
			}
			for _, e := range errs {
				fmt.Fprintf(cmd.ErrOrStderr(), "tandem: %v\n", e)
			}
			if len(ps) == 0 && len(errs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no Claude Code plugins to import")
			}
			return nil
		}),
	})
	return cmd
}

// sayInstalled tells what a plugin enables: installing it is the user's
// consent to its hooks and MCP servers, given knowing this.
func sayInstalled(cmd *cobra.Command, verb string, p *plugin.Plugin) {
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s %s: %s\n", verb, p.Source, p.Version, p.Summary())
	for _, w := range p.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "tandem: warning: %s\n", w)
	}
}

func listPlugins(cmd *cobra.Command, a *app.App, asJSON bool) error {
	m := a.Plugins()
	st, err := m.Load()
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	offer, _ := m.NotImported(home)
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"plugins": st.Sorted(), "claude_code_not_imported": offer})
	}
	out := cmd.OutOrStdout()
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range st.Sorted() {
		state := "enabled"
		if !r.Enabled {
			state = "disabled"
		}
		line := ""
		if p, err := plugin.Load(r.Dir, r.ID().String()); err != nil {
			line = "broken: " + err.Error()
		} else {
			line = p.Summary()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID(), r.Version, state, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(st.Plugins) == 0 {
		fmt.Fprintln(out, "no plugins installed: `tandem plugin marketplace add PATH|GIT_URL`, then `tandem plugin install NAME@MARKETPLACE`")
	}
	if len(offer) > 0 {
		fmt.Fprintf(out, "%d plugin(s) installed for Claude Code are not used by tandem yet: `tandem plugin import` uses them too\n", len(offer))
	}
	return nil
}
