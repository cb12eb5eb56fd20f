package app

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/strictjson"
	"github.com/tandem-agent/tandem/internal/trust"
)

// Why a setting needs trust, shown after the key. The keys a project may
// set without trust (model, runtime, max_turns, deny and ask rules, ...)
// are listed in docs/permissions.md; everything that could send the user's
// keys elsewhere, run commands or loosen a guard is left out of an
// untrusted folder here.
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
	whyUnlisted = "is not among the settings a project may set without trust (docs/permissions.md)"
)

// folder is a working folder's configuration: every project file decoded
// once, and, when the folder is not trusted, those decoded values with
// what needs trust removed. The trust decision is made on the values the
// loaders apply, so the check and the use cannot disagree.
type folder struct {
	cwd string
	// cfg is the user file, the project file (gated) and the environment.
	cfg *config.Config
	// claude are the Claude Code settings files, the project's gated.
	claude []permission.ClaudeFile
	// mcpLocal are the servers of .tandem/config.json and mcpProject those
	// of .mcp.json, gated.
	mcpLocal, mcpProject mcp.Servers
	mcpErrs              []error
	// needs lists every project setting that needs trust, whether or not
	// the folder is trusted: what an untrusted folder leaves out.
	needs         []trust.Finding
	trusted       bool
	trustRoot     string
	claudeLeftOut bool // a project Claude Code settings file lost a key
}

// trustOf says whether cwd is trusted and by which folder.
func (a *App) trustOf(cwd string) (root string, ok bool, err error) {
	if a.opts.TrustProject {
		return cwd, true, nil
	}
	return a.Trust.Trusted(cwd)
}

// openFolder reads and gates cwd's configuration.
func (a *App) openFolder(cwd string) (*folder, error) {
	projectFile := config.ProjectFile(cwd)
	if !a.projectFiles() {
		projectFile = ""
	}
	raw, err := config.Load(a.Paths.UserFile(), projectFile)
	if err != nil {
		return nil, err
	}
	f := &folder{cwd: cwd}
	if f.trustRoot, f.trusted, err = a.trustOf(cwd); err != nil {
		return nil, err
	}
	layers := slices.Clone(raw.Layers)
	for i, l := range layers {
		if l.Scope != "project" {
			continue
		}
		gated, found, err := gateTandem(l, a.knownProvider)
		if err != nil {
			return nil, err
		}
		f.needs = append(f.needs, found...)
		if !f.trusted {
			layers[i] = gated
		}
	}
	f.cfg = config.FromLayers(layers)
	if err := f.cfg.ApplyEnv(a.opts.Getenv); err != nil {
		return nil, err
	}
	home := a.home()
	if !a.userClaudeSettings() {
		home = ""
	}
	if f.claude, err = permission.ReadClaudeSettings(cwd, home, a.projectFiles()); err != nil {
		return nil, err
	}
	for i := range f.claude {
		if f.claude[i].User {
			continue
		}
		gated := f.claude[i]
		found := gateClaude(&gated)
		f.needs = append(f.needs, found...)
		if !f.trusted && len(found) > 0 {
			f.claude[i], f.claudeLeftOut = gated, true
		}
	}
	for _, l := range f.cfg.Layers {
		if l.Scope == "project" {
			servers, errs := mcp.ParseServers(l.MCPServers, mcp.ScopeLocal, l.File)
			f.mcpLocal, f.mcpErrs = servers, append(f.mcpErrs, errs...)
		}
	}
	if !a.projectFiles() {
		return f, nil
	}
	mcpFile := filepath.Join(cwd, ".mcp.json")
	servers, errs := mcp.LoadProjectFile(mcpFile)
	f.mcpErrs = append(f.mcpErrs, errs...)
	found, names := expansionFindings(servers, mcpFile)
	f.needs = append(f.needs, found...)
	if !f.trusted {
		for _, n := range names {
			delete(servers, n)
		}
	}
	f.mcpProject = servers
	return f, nil
}

// projectKeys are the top-level keys of .tandem/config.json a project may
// set untrusted, some gated further below. A key added to tandem's config
// later needs trust in a project file until it is listed here (and in
// docs/permissions.md): new settings are left out by default, not applied.
var projectKeys = map[string]bool{
	"$schema": true, "model": true, "small_model": true, "runtime": true, "permission_mode": true,
	"max_turns": true, "max_budget_usd": true, "thinking_budget": true, "effort": true, "disabledMcpjsonServers": true,
	"providers": true, "tools": true, "permissions": true, "mcpServers": true, "claude_code": true,
	// compaction only tunes when and how the conversation is summarised;
	// its model is as free to choose as "model".
	"compaction": true,
	"skills":     true, "subagents": true,
	// sandbox: a project file may only turn it on (sandbox.ParseLayers
	// leaves out the rest of its section, and says so).
	"sandbox": true,
	// lsp: its servers name programs to run and need trust (gateTandem);
	// the rest only tunes waits and caps, or turns servers off.
	"lsp": true,
}

// gateTandem finds what a project's .tandem/config.json (its decoded
// layer) sets that needs trust, and returns the layer without it. known
// reports the providers that exist without the file (presets and the
// user's own).
func gateTandem(l config.Layer, known func(string) bool) (config.Layer, []trust.Finding, error) {
	var out []trust.Finding
	add := func(key, why string) { out = append(out, trust.Finding{File: l.File, Key: key, Why: why}) }
	c := *l.Config // a copy: the caller keeps the layer as read
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || projectKeys[name] || v.Field(i).IsZero() {
			continue
		}
		add(name, whyUnlisted)
		v.Field(i).SetZero()
	}
	if len(c.Providers) > 0 {
		c.Providers = gateProviders(c.Providers, known, add)
		// A model of a provider left out would fail every request: it goes
		// too, and the session uses the default model.
		for _, m := range []struct {
			key string
			v   *string
		}{{"model", &c.Model}, {"small_model", &c.SmallModel}} {
			prov, _, _ := strings.Cut(*m.v, "/")
			_, had := l.Providers[prov]
			if _, kept := c.Providers[prov]; had && !kept {
				add(m.key, "names the provider "+prov+", which needs trust")
				*m.v = ""
			}
		}
	}
	if c.Tools.WebFetch.AllowPrivate {
		add("tools.web_fetch.allow_private", whyGuard)
		c.Tools.WebFetch.AllowPrivate = false
	}
	if c.Tools.WebSearch.APIKeyEnv != "" {
		add("tools.web_search.api_key_env", whyKeyEnv)
		c.Tools.WebSearch.APIKeyEnv = ""
	}
	if c.LSP != nil && len(c.LSP.Servers) > 0 {
		add("lsp.servers", whyCLI)
		gated := *c.LSP
		gated.Servers = nil
		c.LSP = &gated
	}
	var err error
	if c.Permissions, err = gatePermissions(l.File, c.Permissions, add); err != nil {
		return l, nil, err
	}
	if c.ClaudeCode, err = gateClaudeCode(l.File, c.ClaudeCode, add); err != nil {
		return l, nil, err
	}
	if len(c.MCPServers) > 0 {
		servers, _ := mcp.ParseServers(c.MCPServers, mcp.ScopeLocal, l.File)
		found, drop := expansionFindings(servers, l.File)
		out = append(out, found...)
		if c.MCPServers, err = dropKeys(c.MCPServers, drop...); err != nil {
			return l, nil, &config.Error{File: l.File, Field: "mcpServers", Msg: err.Error()}
		}
	}
	return config.Layer{File: l.File, Scope: l.Scope, Config: &c}, out, nil
}

func gateProviders(in map[string]config.Provider, known func(string) bool, add func(key, why string)) map[string]config.Provider {
	out := maps.Clone(in)
	names := slices.Sorted(maps.Keys(out))
	for _, n := range names {
		p, key := out[n], "providers."+n
		if len(p.Models) > 0 {
			p.Models = maps.Clone(p.Models)
			for _, id := range slices.Sorted(maps.Keys(p.Models)) {
				if m := p.Models[id]; m.Price != nil {
					add(key+".models."+id+".price", whyPrice)
					m.Price = nil
					p.Models[id] = m
				}
			}
		}
		endpoint := p.Kind != "" || p.BaseURL != "" || p.APIKey != "" || p.APIKeyEnv != "" || len(p.Headers) > 0 ||
			p.CredentialsFile != "" || p.Profile != "" || p.Region != "" || p.Project != ""
		if endpoint && !known(n) {
			add(key, whyProvider)
			delete(out, n)
			continue
		}
		for _, g := range []struct {
			key, why string
			set      bool
			clear    func()
		}{
			{"kind", whyEndpoint, p.Kind != "", func() { p.Kind = "" }},
			{"base_url", whyEndpoint, p.BaseURL != "", func() { p.BaseURL = "" }},
			{"headers", whyHeaders, len(p.Headers) > 0, func() { p.Headers = nil }},
			{"api_key_env", whyKeyEnv, p.APIKeyEnv != "", func() { p.APIKeyEnv = "" }},
			{"api_key", whyKeyEnv, p.APIKey != "", func() { p.APIKey = "" }},
			{"credentials_file", whyCreds, p.CredentialsFile != "", func() { p.CredentialsFile = "" }},
			{"profile", whyCreds, p.Profile != "", func() { p.Profile = "" }},
		} {
			if g.set {
				add(key+"."+g.key, g.why)
				g.clear()
			}
		}
		out[n] = p
	}
	return out
}

// gatePermissions judges the decoded "permissions" section and returns it
// without allow rules, extra folders and hooks.
func gatePermissions(file string, raw json.RawMessage, add func(key, why string)) (json.RawMessage, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	var pc permission.Config
	if err := strictjson.Unmarshal(raw, &pc); err != nil {
		return nil, sectionError(file, "permissions", err)
	}
	var drop []string
	if len(pc.Allow) > 0 {
		add("permissions.allow", whyAllow)
		drop = append(drop, "allow")
	}
	if len(pc.AdditionalDirectories) > 0 {
		add("permissions.additionalDirectories", whyDirs)
		drop = append(drop, "additionalDirectories")
	}
	if len(pc.Hooks) > 0 {
		add("permissions.hooks", whyHooks)
		drop = append(drop, "hooks")
	}
	out, err := dropKeys(raw, drop...)
	if err != nil {
		return nil, sectionError(file, "permissions", err)
	}
	if !slices.ContainsFunc(pc.Rules, func(r permission.Rule) bool { return r.Action == permission.ActionAllow }) {
		return out, nil
	}
	add("permissions.rules", whyAllow)
	// Keep the rules that are not allow rules, entry by entry as decoded.
	var obj map[string]json.RawMessage
	var rules []json.RawMessage
	if err := json.Unmarshal(out, &obj); err != nil {
		return nil, sectionError(file, "permissions", err)
	}
	if err := json.Unmarshal(obj["rules"], &rules); err != nil || len(rules) != len(pc.Rules) {
		return nil, sectionError(file, "permissions.rules", errors.New("must be a list of rules"))
	}
	var keep []json.RawMessage
	for i, r := range pc.Rules {
		if r.Action != permission.ActionAllow {
			keep = append(keep, rules[i])
		}
	}
	if obj["rules"], err = json.Marshal(keep); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// gateClaudeCode judges the decoded "claude_code" section and returns it
// without the program, arguments, environment and root switch.
func gateClaudeCode(file string, raw json.RawMessage, add func(key, why string)) (json.RawMessage, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	var cc claudecode.Config
	if err := strictjson.Unmarshal(raw, &cc); err != nil {
		return nil, sectionError(file, "claude_code", err)
	}
	var drop []string
	for _, g := range []struct {
		key string
		set bool
	}{{"path", cc.Path != ""}, {"extra_args", len(cc.ExtraArgs) > 0}, {"env", len(cc.Env) > 0}, {"allow_root", cc.AllowRoot}} {
		if g.set {
			add("claude_code."+g.key, whyCLI)
			drop = append(drop, g.key)
		}
	}
	out, err := dropKeys(raw, drop...)
	if err != nil {
		return nil, sectionError(file, "claude_code", err)
	}
	return out, nil
}

// dropKeys removes keys from a JSON object. The object was checked by
// strictjson, so each key appears once and exactly as the decoder reads it.
func dropKeys(raw json.RawMessage, keys ...string) (json.RawMessage, error) {
	if len(keys) == 0 {
		return raw, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	for _, k := range keys {
		delete(obj, k)
	}
	return json.Marshal(obj)
}

func sectionError(file, field string, err error) error {
	var se *strictjson.Error
	if errors.As(err, &se) {
		field += "." + se.Field()
	}
	return &config.Error{File: file, Field: field, Msg: err.Error()}
}

// gateClaude finds what a project's Claude Code settings file (decoded)
// sets that needs trust, and removes it from f. The claude-code runtime's
// CLI reads these files itself, so every key that makes the CLI run a
// command or change its environment counts too.
func gateClaude(f *permission.ClaudeFile) []trust.Finding {
	var out []trust.Finding
	add := func(key, why string) { out = append(out, trust.Finding{File: f.Path, Key: key, Why: why}) }
	if len(f.Permissions.Allow) > 0 {
		add("permissions.allow", whyAllow)
		f.Permissions.Allow = nil
	}
	if len(f.Permissions.AdditionalDirectories) > 0 {
		add("permissions.additionalDirectories", whyDirs)
		f.Permissions.AdditionalDirectories = nil
	}
	if len(f.Hooks) > 0 {
		add("hooks", whyHooks)
		f.Hooks = nil
	}
	for _, k := range []struct {
		key, why string
		v        *json.RawMessage
	}{
		{"env", whyEnv, &f.Env}, {"apiKeyHelper", whyHooks, &f.APIKeyHelper}, {"awsAuthRefresh", whyHooks, &f.AWSAuthRefresh},
		{"awsCredentialExport", whyHooks, &f.AWSCredentialExport}, {"otelHeadersHelper", whyHooks, &f.OtelHeadersHelper},
		{"statusLine", whyHooks, &f.StatusLine},
		{"enableAllProjectMcpServers", whyApprove, &f.EnableAllProjectMcpServers}, {"enabledMcpjsonServers", whyApprove, &f.EnabledMcpjsonServers},
	} {
		if !emptyJSON(*k.v) {
			add(k.key, k.why)
			*k.v = nil
		}
	}
	return out
}

func emptyJSON(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s == "" || s == "null" || s == "false" || s == `""` || s == "[]" || s == "{}"
}

// expansionFindings are the servers whose entries copy the environment
// (${VAR}) into their settings: a project's servers start only once
// approved (see internal/mcp), but ${ANTHROPIC_API_KEY} in an entry would
// copy the user's key into the server's headers, URL or environment.
func expansionFindings(servers mcp.Servers, file string) (out []trust.Finding, names []string) {
	for _, name := range servers.Names() {
		refs := servers[name].RefFields()
		for _, k := range refs {
			out = append(out, trust.Finding{File: file, Key: "mcpServers." + name + "." + k, Why: whyExpand})
		}
		if len(refs) > 0 {
			names = append(names, name)
		}
	}
	return out, names
}
