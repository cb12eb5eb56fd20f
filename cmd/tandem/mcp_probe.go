package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/trust"
)

func testCmd(deps *mcpDeps) *cobra.Command {
	var wait time.Duration
	c := &cobra.Command{
		Use:   "test NAME",
		Short: "Connect to an MCP server and list its tools, resources and prompts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			servers, _, errs := mcp.LoadAll(deps.paths())
			cfg, ok := servers[name]
			if !ok {
				for _, e := range errs {
					if strings.Contains(e.Error(), "mcpServers."+name) {
						return e
					}
				}
				return fmt.Errorf("no mcp server named %q (see `tandem mcp list`)", name)
			}
			cfg.Disabled = false // testing is asking for it explicitly
			if err := checkTrust(deps, name, cfg); err != nil {
				return err
			}
			return runTest(cmd.Context(), deps, name, cfg, wait)
		},
	}
	c.Flags().DurationVar(&wait, "wait", 60*time.Second, "how long to wait for the server")
	return c
}

// checkTrust refuses to expand ${VAR} in a project's entry (which would
// copy the user's keys into a server a cloned repository chose) unless the
// folder is trusted, as a session would.
func checkTrust(deps *mcpDeps, name string, cfg mcp.ServerConfig) error {
	refs := cfg.RefFields()
	if !mcp.NeedsApproval(cfg.Scope) || len(refs) == 0 {
		return nil
	}
	if _, ok, err := trust.NewStore(deps.DataDir).Trusted(deps.ProjectDir); err != nil || ok {
		return err
	}
	return fmt.Errorf("%s: mcpServers.%s.%s references an environment variable, which would copy your environment (API keys) into a server this project chose; the folder %s is not trusted: run `tandem trust %s` first if you trust its files",
		cfg.File, name, refs[0], deps.ProjectDir, deps.ProjectDir)
}

func runTest(ctx context.Context, deps *mcpDeps, name string, cfg mcp.ServerConfig, wait time.Duration) error {
	if ctx == nil {
		ctx = context.Background()
	}
	out := termsafe.Writer(deps.Stdout) // names, descriptions and stderr come from the server
	reg := tool.NewRegistry()
	m := mcp.NewManager(mcp.Options{
		Servers: mcp.Servers{name: cfg}, Registry: reg, WorkDir: deps.ProjectDir, LookupEnv: deps.LookupEnv,
		Policy: mcp.Policy{Trust: true}, ClientName: "tandem", ClientVersion: deps.ClientVersion,
		Tokens: mcp.NewTokenStore(deps.DataDir),
	})
	defer m.Close()
	start := time.Now()
	m.Start(ctx)
	m.WaitReady(ctx, wait)
	elapsed := time.Since(start).Round(time.Millisecond)
	st := m.Status()[0]
	if st.State != mcp.StateConnected {
		fmt.Fprintf(out, "✗ %s: %s after %s\n", name, orState(st), elapsed)
		if st.Stderr != "" {
			fmt.Fprintf(out, "stderr (last lines):\n%s\n", indent(st.Stderr))
		}
		return fmt.Errorf("mcp server %s did not connect", name)
	}
	fmt.Fprintf(out, "✓ %s connected in %s (%s %s, %s)\n", name, elapsed, st.ServerName, st.ServerVersion, st.Type)
	fmt.Fprintf(out, "Tools (%d):\n", st.Tools)
	for _, t := range m.Tools() {
		ro := ""
		if r, ok := t.(tool.ReadOnly); ok && r.ReadOnly() {
			ro = " [read-only]"
		}
		fmt.Fprintf(out, "  %s%s  %s\n", t.Name(), ro, mcpFirstLine(t.Description()))
	}
	rs, _ := m.Resources(name)
	fmt.Fprintf(out, "Resources (%d):\n", len(rs))
	for _, r := range rs {
		fmt.Fprintf(out, "  %s  %s\n", r.URI+r.Template, r.Name)
	}
	ps := m.Prompts()
	fmt.Fprintf(out, "Prompts (%d):\n", len(ps))
	for _, p := range ps {
		fmt.Fprintf(out, "  %s  %s\n", p.Name, mcpFirstLine(p.Description))
	}
	return nil
}

func orState(st mcp.ServerStatus) string {
	if st.Error != "" {
		return string(st.State) + ": " + st.Error
	}
	return "still " + string(st.State)
}

func mcpFirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
