package main

// `tandem mcp list | add | add-json | remove | enable | disable | test | login | logout`
// edit tandem's config files the way `claude mcp` edits Claude Code's.

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// mcpDeps are what the mcp commands need from the root command.
type mcpDeps struct {
	// UserConfig is $XDG_CONFIG_HOME/tandem/config.json.
	UserConfig string
	// ProjectDir is the project folder (cwd): .mcp.json and
	// .tandem/config.json live there, and approvals are keyed by it.
	ProjectDir string
	// DataDir holds the approvals file (mcp-approvals.json).
	DataDir        string
	Stdout, Stderr io.Writer
	// LookupEnv resolves ${VAR}; default os.LookupEnv.
	LookupEnv mcp.LookupFunc
	// ClientVersion is sent to servers by `test`.
	ClientVersion string
	// Resolve, when set, runs once the command line is parsed and may fill
	// in the paths: the root's --home flag is known only then.
	Resolve func(*mcpDeps) error
}

func (d mcpDeps) paths() mcp.Paths         { return mcp.ProjectPaths(d.UserConfig, d.ProjectDir) }
func (d mcpDeps) approvals() mcp.Approvals { return mcp.NewFileApprovals(d.DataDir) }

// NewCommand returns the `mcp` command with its subcommands.
func newMCPCommand(deps mcpDeps) *cobra.Command {
	if deps.Stdout == nil {
		deps.Stdout = os.Stdout
	}
	if deps.Stderr == nil {
		deps.Stderr = os.Stderr
	}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Configure and test MCP servers",
		Long: `Configure MCP servers in tandem's config files.

Scopes (as in claude mcp):
  local    .tandem/config.json in this project (default)
  project  .mcp.json in this project (Claude Code's shared file)
  user     ` + deps.UserConfig + `

Servers from the project's files run only once approved (tandem mcp enable NAME);
servers you add here are approved for this project automatically.`,
		SilenceUsage: true,
	}
	cmd.SetOut(deps.Stdout)
	cmd.SetErr(deps.Stderr)
	d := &deps
	if deps.Resolve != nil {
		cmd.PersistentPreRunE = func(*cobra.Command, []string) error { return deps.Resolve(d) }
	}
	cmd.AddCommand(listCmd(d), addCmd(d), addJSONCmd(d), removeCmd(d),
		enableCmd(d, true), enableCmd(d, false), testCmd(d), loginCmd(d), logoutCmd(d))
	return cmd
}

func scopeFlag(c *cobra.Command, p *string, def string) {
	c.Flags().StringVarP(p, "scope", "s", def, "config scope: local, project or user")
}

// findScope returns the scope whose file defines name: the given one, or
// the only one that has it.
func findScope(deps *mcpDeps, name, scope string) (string, *configDoc, error) {
	paths := deps.paths()
	if scope != "" {
		path, err := paths.PathFor(scope)
		if err != nil {
			return "", nil, err
		}
		doc, err := readDoc(path, scope)
		if err != nil {
			return "", nil, err
		}
		if !doc.has(name) {
			return "", nil, fmt.Errorf("no mcp server %q in %s (%s scope)", name, path, scope)
		}
		return scope, doc, nil
	}
	var found []string
	var docs []*configDoc
	for _, s := range []string{mcp.ScopeLocal, mcp.ScopeProject, mcp.ScopeUser} {
		path, _ := paths.PathFor(s)
		doc, err := readDoc(path, s)
		if err != nil {
			return "", nil, err
		}
		if doc.has(name) {
			found, docs = append(found, s), append(docs, doc)
		}
	}
	switch len(found) {
	case 0:
		return "", nil, fmt.Errorf("no mcp server named %q in any config (see `tandem mcp list`)", name)
	case 1:
		return found[0], docs[0], nil
	}
	return "", nil, fmt.Errorf("mcp server %q is defined in several scopes (%v); pick one with --scope", name, found)
}
