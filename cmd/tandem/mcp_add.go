package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/mcp"
)

func addCmd(deps *mcpDeps) *cobra.Command {
	var (
		scope, transport, cwd string
		env, headers          []string
		timeout               float64
	)
	c := &cobra.Command{
		Use:   "add [flags] NAME COMMAND_OR_URL [ARGS...]",
		Short: "Add an MCP server",
		Example: `  tandem mcp add fs npx -y @modelcontextprotocol/server-filesystem .
  tandem mcp add -e API_KEY='${API_KEY}' weather node weather.js
  tandem mcp add --scope user -t http -H 'Authorization: Bearer ${TOKEN}' docs https://example.com/mcp`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, first := args[0], args[1]
			entry := map[string]any{}
			typ := transport
			if typ == "" {
				typ = guessType(first)
			}
			var cfg mcp.ServerConfig
			if typ == mcp.TypeStdio {
				cfg = mcp.ServerConfig{Type: typ, Command: first, Args: args[2:], Cwd: cwd}
				entry["type"], entry["command"], entry["args"] = typ, first, nonNil(args[2:])
				if cwd != "" {
					entry["cwd"] = cwd
				}
			} else {
				if len(args) > 2 {
					return fmt.Errorf("a %s server takes one url, got extra arguments %q", typ, args[2:])
				}
				cfg = mcp.ServerConfig{Type: typ, URL: first}
				entry["type"], entry["url"] = typ, first
			}
			envMap, err := pairs(env, "=", "--env")
			if err != nil {
				return err
			}
			hdrMap, err := pairs(headers, ":", "--header")
			if err != nil {
				return err
			}
			if len(envMap) > 0 {
				cfg.Env, entry["env"] = envMap, envMap
			}
			if len(hdrMap) > 0 {
				cfg.Headers, entry["headers"] = hdrMap, hdrMap
			}
			if timeout > 0 {
				entry["timeout"] = timeout
			}
			if err := cfg.Validate(name); err != nil {
				return err
			}
			return addEntry(deps, scope, name, entry)
		},
	}
	c.Flags().SetInterspersed(false) // flags after the command belong to it (npx -y ...)
	scopeFlag(c, &scope, mcp.ScopeLocal)
	c.Flags().StringVarP(&transport, "transport", "t", "", "stdio, http, sse or ws (default: stdio, or from the url)")
	c.Flags().StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE (repeatable; ${VAR} is expanded at start)")
	c.Flags().StringArrayVarP(&headers, "header", "H", nil, `HTTP header "Name: value" (repeatable)`)
	c.Flags().Float64Var(&timeout, "timeout", 0, "per tool call timeout in seconds (default 120)")
	c.Flags().StringVar(&cwd, "cwd", "", "working folder of a stdio server")
	return c
}

func addJSONCmd(deps *mcpDeps) *cobra.Command {
	var scope string
	c := &cobra.Command{
		Use:     "add-json NAME JSON",
		Short:   "Add an MCP server from a JSON entry",
		Example: `  tandem mcp add-json weather '{"type":"stdio","command":"node","args":["weather.js"]}'`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			raw := json.RawMessage(args[1])
			servers, errs := mcp.ParseServers(json.RawMessage(`{"`+jsonEscape(name)+`":`+args[1]+`}`), scope, "argument")
			if len(errs) > 0 {
				return errs[0]
			}
			if _, ok := servers[name]; !ok {
				return fmt.Errorf("server %q not parsed", name)
			}
			var entry any
			if err := json.Unmarshal(raw, &entry); err != nil {
				return fmt.Errorf("JSON entry: %w", err)
			}
			return addEntry(deps, scope, name, entry)
		},
	}
	scopeFlag(c, &scope, mcp.ScopeLocal)
	return c
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// addEntry writes the entry into the scope's file and approves it for this
// project: the user typed it, so it needs no further confirmation.
func addEntry(deps *mcpDeps, scope, name string, entry any) error {
	path, err := deps.paths().PathFor(scope)
	if err != nil {
		return err
	}
	doc, err := readDoc(path, scope)
	if err != nil {
		return err
	}
	if doc.has(name) {
		return fmt.Errorf("mcp server %q already exists in %s; remove it first (tandem mcp remove %s --scope %s)", name, path, name, scope)
	}
	if err := doc.set(name, entry); err != nil {
		return err
	}
	if err := doc.save(); err != nil {
		return err
	}
	if mcp.NeedsApproval(scope) {
		if err := deps.approvals().Approve(deps.ProjectDir, name); err != nil {
			return err
		}
	}
	fmt.Fprintf(deps.Stdout, "Added MCP server %s to %s (%s scope)\n", name, path, scope)
	return nil
}

func guessType(s string) string {
	switch {
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		return mcp.TypeHTTP
	case strings.HasPrefix(s, "ws://"), strings.HasPrefix(s, "wss://"):
		return mcp.TypeWS
	}
	return mcp.TypeStdio
}

func pairs(items []string, sep, flag string) (map[string]string, error) {
	out := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: want NAME%sVALUE", flag, it, sep)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
