package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
)

func removeCmd(deps *mcpDeps) *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from its config file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			sc, doc, err := findScope(deps, name, scope)
			if err != nil {
				return err
			}
			doc.remove(name)
			if err := doc.save(); err != nil {
				return err
			}
			if mcp.NeedsApproval(sc) {
				_ = deps.approvals().Revoke(deps.ProjectDir, name)
			}
			fmt.Fprintf(deps.Stdout, "Removed MCP server %s from %s (%s scope)\n", name, doc.path, sc)
			return nil
		},
	}
	scopeFlag(c, &scope, "")
	return c
}

// enableCmd builds enable (on) or disable. Project (.mcp.json) servers are
// switched through the approvals store, so the shared file is not edited;
// the user's own entries get their "disabled" key changed.
func enableCmd(deps *mcpDeps, on bool) *cobra.Command {
	var scope string
	use, short := "enable NAME", "Enable (and for project servers approve) an MCP server"
	if !on {
		use, short = "disable NAME", "Disable an MCP server (project servers: withdraw the approval)"
	}
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			sc, doc, err := findScope(deps, name, scope)
			if err != nil {
				return err
			}
			if sc != mcp.ScopeProject {
				var v any
				if !on {
					v = true
				}
				if err := doc.setField(name, "disabled", v); err != nil {
					return err
				}
				if err := doc.save(); err != nil {
					return err
				}
			}
			if mcp.NeedsApproval(sc) {
				a := deps.approvals()
				if on {
					err = a.Approve(deps.ProjectDir, name)
				} else {
					err = a.Revoke(deps.ProjectDir, name)
				}
				if err != nil {
					return err
				}
			}
			verb := "Enabled"
			if !on {
				verb = "Disabled"
			}
			fmt.Fprintf(deps.Stdout, "%s MCP server %s (%s scope, %s)\n", verb, name, sc, doc.path)
			return nil
		},
	}
	scopeFlag(c, &scope, "")
	return c
}
