package app

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/trust"
)

// Why a setting needs trust, shown after the key in the refusal. The keys
// a project may set without trust (model, runtime, max_turns, deny and ask
// rules, ...) are listed in docs/permissions.md; everything that could send
// the user's keys elsewhere, run commands or loosen a guard is checked here.
const (
	whyEndpoint = "could send your API key to another host"
	whyHeaders  = "adds headers to requests that carry your API key"
	whyKeyEnv   = "chooses which of your environment's keys is sent"
	whyCreds    = "chooses which of your cloud credentials are used"
	whyProvider = "adds a provider (and chooses where its requests go)"
	whyGuard    = "turns off WebFetch's private-address guard"
	whyAllow    = "approves tool calls without asking"
	whyDirs     = "lets the agent work in folders outside the project"
	whyHooks    = "runs commands on your machine"
	whyEnv      = "sets environment variables for tandem's tools and the Claude Code CLI"
	whyCLI      = "chooses the program (or arguments, environment) tandem runs"
	whyExpand   = "copies environment variables (your keys) into an MCP server's settings"
	whyApprove  = "approves the project's own MCP servers"
	whyPrice    = "sets what a model's calls cost, which --max-budget-usd stops at"
)

// projectFindings lists what the folder's project files set that only a
// trusted folder may. Files that fail to parse are reported by their own
// loaders, not here.
func projectFindings(cwd string, cfg *config.Config, known func(provider string) bool) []trust.Finding {
	var out []trust.Finding
	for _, l := range cfg.Layers {
		if l.Scope == "project" {
			out = append(out, tandemFindings(l, known)...)
		}
	}
	for _, f := range []string{filepath.Join(cwd, ".claude", "settings.json"), filepath.Join(cwd, ".claude", "settings.local.json")} {
		out = append(out, claudeFindings(f)...)
	}
	out = append(out, mcpFindings(filepath.Join(cwd, ".mcp.json"))...)
	out = append(out, skillFindings(cwd)...)
	return out
}

// projectKeys are the top-level keys of .tandem/config.json a project may
// set untrusted, some checked further below. A key added to tandem's config
// later needs trust in a project file until it is listed here (and in
// docs/permissions.md): new settings are refused by default, not allowed.
var projectKeys = map[string]bool{
	"$schema": true, "model": true, "small_model": true, "runtime": true, "permission_mode": true,
	"max_turns": true, "max_budget_usd": true, "thinking_budget": true, "effort": true, "disabledMcpjsonServers": true,
	"providers": true, "tools": true, "permissions": true, "mcpServers": true, "claude_code": true,
	// compaction only tunes when and how the conversation is summarised;
	// its model is as free to choose as "model".
	"compaction": true,
	"skills":     true, "subagents": true,
}

const whyUnlisted = "is not among the settings a project may set without trust (docs/permissions.md)"

// tandemFindings checks a project's .tandem/config.json; known reports the
// providers that exist without it (presets and the user's own).
func tandemFindings(l config.Layer, known func(string) bool) []trust.Finding {
	var out []trust.Finding
	add := func(key, why string) { out = append(out, trust.Finding{File: l.File, Key: key, Why: why}) }
	if data, err := projectfile.Read(filepath.Dir(filepath.Dir(l.File)), l.File, projectfile.SettingsLimit); err == nil {
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) == nil {
			keys := make([]string, 0, len(top))
			for k := range top {
				if !projectKeys[k] {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				add(k, whyUnlisted)
			}
		}
	}
	names := make([]string, 0, len(l.Providers))
	for n := range l.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, key := l.Providers[n], "providers."+n
		ids := make([]string, 0, len(p.Models))
		for id, m := range p.Models {
			if m.Price != nil {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			add(key+".models."+id+".price", whyPrice)
		}
		if p.Kind == "" && p.BaseURL == "" && p.APIKey == "" && p.APIKeyEnv == "" && len(p.Headers) == 0 &&
			p.CredentialsFile == "" && p.Profile == "" && p.Region == "" && p.Project == "" {
			continue // only "disabled": a project may switch a provider off
		}
		if !known(n) {
			add(key, whyProvider)
			continue
		}
		if p.Kind != "" {
			add(key+".kind", whyEndpoint)
		}
		if p.BaseURL != "" {
			add(key+".base_url", whyEndpoint)
		}
		if len(p.Headers) > 0 {
			add(key+".headers", whyHeaders)
		}
		if p.APIKeyEnv != "" {
			add(key+".api_key_env", whyKeyEnv)
		}
		if p.APIKey != "" {
			add(key+".api_key", whyKeyEnv)
		}
		if p.CredentialsFile != "" {
			add(key+".credentials_file", whyCreds)
		}
		if p.Profile != "" {
			add(key+".profile", whyCreds)
		}
	}
	if l.Tools.WebFetch.AllowPrivate {
		add("tools.web_fetch.allow_private", whyGuard)
	}
	if l.Tools.WebSearch.APIKeyEnv != "" {
		add("tools.web_search.api_key_env", whyKeyEnv)
	}
	if len(l.Permissions) > 0 {
		var pc permission.Config
		if json.Unmarshal(l.Permissions, &pc) == nil {
			if len(pc.Allow) > 0 {
				add("permissions.allow", whyAllow)
			}
			if slices.ContainsFunc(pc.Rules, func(r permission.Rule) bool { return r.Action == permission.ActionAllow }) {
				add("permissions.rules", whyAllow)
			}
			if len(pc.AdditionalDirectories) > 0 {
				add("permissions.additionalDirectories", whyDirs)
			}
			if len(pc.Hooks) > 0 {
				add("permissions.hooks", whyHooks)
			}
		}
	}
	if len(l.ClaudeCode) > 0 {
		var cc map[string]json.RawMessage
		if json.Unmarshal(l.ClaudeCode, &cc) == nil {
			for _, k := range []string{"path", "extra_args", "env", "allow_root"} {
				if v, ok := cc[k]; ok && !emptyJSON(v) {
					add("claude_code."+k, whyCLI)
				}
			}
		}
	}
	if len(l.MCPServers) > 0 {
		servers, _ := mcp.ParseServers(l.MCPServers, mcp.ScopeLocal, l.File)
		out = append(out, expansionFindings(servers, l.File)...)
	}
	return out
}

func emptyJSON(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s == "null" || s == "false" || s == `""` || s == "[]" || s == "{}"
}

// claudeFindings checks a project's Claude Code settings file. The
// claude-code runtime's CLI reads these files itself, so every key that
// makes the CLI run a command or change its environment counts too.
func claudeFindings(path string) []trust.Finding {
	data, err := projectfile.Read(filepath.Dir(filepath.Dir(path)), path, projectfile.SettingsLimit)
	if err != nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []trust.Finding
	add := func(key, why string) { out = append(out, trust.Finding{File: path, Key: key, Why: why}) }
	var perms map[string]json.RawMessage
	if v, ok := doc["permissions"]; ok {
		_ = json.Unmarshal(v, &perms)
	}
	if v, ok := perms["allow"]; ok && !emptyJSON(v) {
		add("permissions.allow", whyAllow)
	}
	if v, ok := perms["additionalDirectories"]; ok && !emptyJSON(v) {
		add("permissions.additionalDirectories", whyDirs)
	}
	for _, k := range []struct{ key, why string }{
		{"env", whyEnv}, {"hooks", whyHooks}, {"apiKeyHelper", whyHooks}, {"awsAuthRefresh", whyHooks},
		{"awsCredentialExport", whyHooks}, {"otelHeadersHelper", whyHooks}, {"statusLine", whyHooks},
		{"enableAllProjectMcpServers", whyApprove}, {"enabledMcpjsonServers", whyApprove},
	} {
		if v, ok := doc[k.key]; ok && !emptyJSON(v) {
			add(k.key, k.why)
		}
	}
	return out
}

// mcpFindings checks .mcp.json: its servers start only once approved (see
// internal/mcp), but ${VAR} in an entry would copy the user's environment
// (ANTHROPIC_API_KEY) into the server's headers, URL or environment.
func mcpFindings(path string) []trust.Finding {
	servers, _ := mcp.LoadProjectFile(path)
	return expansionFindings(servers, path)
}

func expansionFindings(servers mcp.Servers, file string) []trust.Finding {
	var out []trust.Finding
	for _, name := range servers.Names() {
		for _, k := range servers[name].RefFields() {
			out = append(out, trust.Finding{File: file, Key: "mcpServers." + name + "." + k, Why: whyExpand})
		}
	}
	return out
}
