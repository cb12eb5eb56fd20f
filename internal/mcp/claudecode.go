package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
)

// ClaudeCodeConfigJSON renders servers in Claude Code's --mcp-config format
// ({"mcpServers": {...}}) with ${VAR} references expanded, so the
// claude-code runtime sees the same servers as the native one. Pass only
// servers that may run (disabled and unapproved ones are skipped here too).
//
// Mapping notes: Claude Code's stdio entries have no cwd, so a cwd becomes
// `sh -c 'cd "$0" && exec "$@"' DIR COMMAND ARGS...`; "ws" is a Claude Code
// type and is passed through; timeout, enabled_tools and disabled_tools
// have no per-server equivalent there (see ClaudeCodeDisallowedTools).
// An entry whose ${VAR} cannot be expanded is left out and reported.
func ClaudeCodeConfigJSON(servers Servers) ([]byte, error) {
	return claudeCodeConfig(servers, nil)
}

func claudeCodeConfig(servers Servers, lookup LookupFunc) ([]byte, error) {
	out := map[string]any{}
	var errs []error
	for _, name := range servers.Names() {
		c := servers[name]
		if c.Disabled {
			continue
		}
		if c.TransportType() == TypeSDK {
			errs = append(errs, fmt.Errorf("%s lives in the program that started tandem, which the Claude Code CLI cannot reach", name))
			continue
		}
		x, err := c.Expand(name, lookup)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = claudeCodeEntry(x)
	}
	b, err := json.Marshal(map[string]any{"mcpServers": out})
	if err != nil {
		return nil, fmt.Errorf("encode claude code mcp config: %w", err)
	}
	if len(errs) > 0 {
		return b, fmt.Errorf("some mcp servers were left out: %v", joinErrs(errs))
	}
	return b, nil
}

func claudeCodeEntry(c ServerConfig) map[string]any {
	e := map[string]any{"type": c.TransportType()}
	switch c.TransportType() {
	case TypeStdio:
		cmd, args := c.Command, c.Args
		if c.Cwd != "" {
			cmd = "sh"
			args = append([]string{"-c", `cd "$0" && exec "$@"`, c.Cwd, c.Command}, c.Args...)
		}
		e["command"] = cmd
		e["args"] = nonNil(args)
		if len(c.Env) > 0 {
			e["env"] = c.Env
		}
	default:
		e["url"] = c.URL
		if len(c.Headers) > 0 {
			e["headers"] = c.Headers
		}
	}
	return e
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ClaudeCodeDisallowedTools lists disabled_tools as mcp__server__tool names
// for Claude Code's --disallowedTools. (enabled_tools cannot be expressed
// without knowing every tool a server has; the native runtime applies it.)
func ClaudeCodeDisallowedTools(servers Servers) []string {
	var out []string
	for _, name := range servers.Names() {
		for _, t := range servers[name].DisabledTools {
			out = append(out, "mcp__"+SanitizeName(name)+"__"+SanitizeName(t))
		}
	}
	sort.Strings(out)
	return out
}

func joinErrs(errs []error) string {
	s := ""
	for i, e := range errs {
		if i > 0 {
			s += "; "
		}
		s += e.Error()
	}
	return s
}
