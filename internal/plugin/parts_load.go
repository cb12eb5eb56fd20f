package plugin

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// hooksFile and mcpFile are the plugin's default hooks and MCP files.
const (
	hooksFile = "hooks/hooks.json"
	mcpFile   = ".mcp.json"
)

// loadHooks reads hooks/hooks.json and the manifest's "hooks" (a path, a
// list of paths, or the hooks inline). A file is {"hooks": {EVENT: [...]}}
// as in Claude Code; inline, the object may also be the events map itself.
func (p *Plugin) loadHooks(field json.RawMessage) {
	add := func(where string, raw []byte) {
		raw, err := p.withRoot(raw)
		if err != nil {
			p.warn("%s: %v (its hooks are not used)", where, err)
			return
		}
		var wrapped struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Hooks) > 0 && wrapped.Hooks[0] == '{' {
			raw = wrapped.Hooks
		}
		var cfg hooks.Config
		if err := json.Unmarshal(raw, &cfg); err != nil {
			p.warn("%s: %v (its hooks are not used)", where, err)
			return
		}
		if err := cfg.Validate(); err != nil {
			p.warn("%s: %v (its hooks are not used)", where, err)
			return
		}
		p.Hooks = hooks.Merge(p.Hooks, cfg)
	}
	p.eachSource(field, hooksFile, "hooks", add)
}

// loadMCP reads .mcp.json and the manifest's "mcpServers" (a path, a list
// of paths, or the servers inline), naming each server
// plugin_<plugin>_<server>. Installing the plugin was the user's consent:
// its servers have the user's scope (no approval asked, as the user's own
// config file's).
func (p *Plugin) loadMCP(field json.RawMessage) {
	add := func(where string, raw []byte) {
		raw, err := p.withRoot(raw)
		if err != nil {
			p.warn("%s: %v (its MCP servers are not used)", where, err)
			return
		}
		var wrapped struct {
			Servers json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Servers) > 0 {
			raw = wrapped.Servers
		}
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			p.warn("%s: mcpServers must be an object of server entries", where)
			return
		}
		renamed := map[string]json.RawMessage{}
		for name, e := range entries {
			renamed[ServerName(p.Name, name)] = e
		}
		all, _ := json.Marshal(renamed)
		servers, errs := mcp.ParseServers(all, mcp.ScopeUser, where)
		for _, e := range errs {
			p.warn("%v", e)
		}
		if p.MCP == nil {
			p.MCP = mcp.Servers{}
		}
		for n, c := range servers {
			if c.TransportType() == mcp.TypeStdio {
				env := map[string]string{RootVar: p.Dir}
				for k, v := range c.Env {
					env[k] = v
				}
				c.Env = env
			}
			p.MCP[n] = c
		}
	}
	p.eachSource(field, mcpFile, "mcpServers", add)
}

// ServerName is the name a plugin's MCP server gets in tandem.
func ServerName(plugin, server string) string {
	return mcp.SanitizeName("plugin_" + plugin + "_" + server)
}

// eachSource calls add with the default file's bytes (when present) and
// with each of the manifest field's: a path's file, or the inline object.
func (p *Plugin) eachSource(field json.RawMessage, def, name string, add func(where string, raw []byte)) {
	seen := map[string]bool{}
	file := func(rel string) {
		abs, err := p.inside(rel)
		if err != nil {
			p.warn("%s: %v", name, err)
			return
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		relTo, _ := filepath.Rel(p.Dir, abs)
		data, err := read(p.Dir, relTo)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && rel == def {
				return
			}
			p.warn("%s: %v", name, err)
			return
		}
		add(abs, data)
	}
	file(def)
	if len(field) == 0 || string(field) == "null" {
		return
	}
	if field[0] == '{' {
		add(filepath.Join(p.Dir, ManifestFile)+" ("+name+")", field)
		return
	}
	var list paths
	if err := json.Unmarshal(field, &list); err != nil {
		p.warn("%s: %v", name, err)
		return
	}
	for _, rel := range list {
		file(rel)
	}
}
