package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// listEntry is one row of `tandem mcp list`.
type listEntry struct {
	Name   string   `json:"name"`
	Scope  string   `json:"scope"`
	File   string   `json:"file"`
	Type   string   `json:"type"`
	Target string   `json:"target"`
	Status string   `json:"status"` // enabled | disabled | needs approval
	Tools  []string `json:"-"`
}

func listCmd(deps *mcpDeps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List configured MCP servers and whether they will run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			servers, settings, errs := mcp.LoadAll(deps.paths())
			for _, e := range errs {
				fmt.Fprintln(deps.Stderr, "warning:", e)
			}
			policy := settings.Policy(deps.ProjectDir, deps.approvals(), false)
			var rows []listEntry
			for _, name := range servers.Names() {
				c := servers[name]
				rows = append(rows, listEntry{Name: name, Scope: c.Scope, File: c.File, Type: c.TransportType(),
					Target: target(c), Status: runStatus(name, c, policy)})
			}
			if asJSON {
				if rows == nil {
					rows = []listEntry{}
				}
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(deps.Stdout, string(b))
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintln(deps.Stdout, "No MCP servers configured. Add one with `tandem mcp add NAME COMMAND [ARGS...]`.")
				return nil
			}
			tw := tabwriter.NewWriter(termsafe.Writer(deps.Stdout), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCOPE\tTYPE\tSTATUS\tCOMMAND/URL")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Scope, r.Type, r.Status, r.Target)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func target(c mcp.ServerConfig) string {
	if c.TransportType() == mcp.TypeStdio {
		return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
	}
	return c.URL
}

func runStatus(name string, c mcp.ServerConfig, p mcp.Policy) string {
	switch {
	case c.Disabled:
		return "disabled"
	case !p.Allowed(name, c):
		return "needs approval"
	}
	return "enabled"
}
