// Package plugin reads Claude Code plugins and marketplaces and keeps the
// plugins a user installed (docs/plugins.md). A plugin is a folder with
// `.claude-plugin/plugin.json` (optional) and any of commands/, agents/,
// skills/, output-styles/, hooks/hooks.json and .mcp.json; a marketplace
// is a folder or git repository with `.claude-plugin/marketplace.json`
// listing plugins. Every file is read through internal/projectfile (inside
// the plugin's folder, regular, size-capped) and decoded once; what the
// loaders of skills, commands, agents, hooks, MCP servers and output
// styles need comes out of Parts, the one seam between plugins and them.
package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/projectfile"
)

// ManifestFile is where a plugin's manifest lives, under its folder.
const ManifestFile = ".claude-plugin/plugin.json"

// RootVar is the variable hooks and MCP servers use for the plugin's
// folder, as in Claude Code.
const RootVar = "CLAUDE_PLUGIN_ROOT"

// Plugin is one plugin as loaded from its folder.
type Plugin struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Dir         string `json:"dir"`
	// Source says where it was found: "name@marketplace" for an installed
	// plugin, "--plugin-dir" for one run's.
	Source string `json:"source"`
	// Commands, Agents, Skills and OutputStyles are the folders (or
	// single .md files) of each part, inside Dir.
	Commands     []string `json:"commands,omitempty"`
	Agents       []string `json:"agents,omitempty"`
	Skills       []string `json:"skills,omitempty"`
	OutputStyles []string `json:"output_styles,omitempty"`
	// Hooks are its hooks, ${CLAUDE_PLUGIN_ROOT} replaced.
	Hooks hooks.Config `json:"-"`
	// MCP are its MCP servers, named plugin_<plugin>_<server> (the
	// server name Claude Code's tool names carry).
	MCP mcp.Servers `json:"-"`
	// Warnings are the parts that could not be used (the rest are).
	Warnings []string `json:"warnings,omitempty"`
}

// manifest is plugin.json, the fields tandem uses (the others are
// Claude Code's and ignored).
type manifest struct {
	Name         string          `json:"name"`
	Version      string          `json:"version"`
	Description  string          `json:"description"`
	Commands     paths           `json:"commands"`
	Agents       paths           `json:"agents"`
	Skills       paths           `json:"skills"`
	OutputStyles paths           `json:"outputStyles"`
	Hooks        json.RawMessage `json:"hooks"`
	MCPServers   json.RawMessage `json:"mcpServers"`
}

// paths is a manifest field that is one path or a list of them.
type paths []string

func (p *paths) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*p = paths{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("must be a path or a list of paths")
	}
	*p = many
	return nil
}

// Load reads the plugin in dir. An unusable manifest is an error (the
// plugin is skipped, the caller reports it); a part that cannot be used
// is a warning and the other parts load.
func Load(dir, source string) (*Plugin, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin folder %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("plugin folder %s: not a folder (give the folder holding .claude-plugin/plugin.json)", dir)
	}
	p := &Plugin{Dir: abs, Source: source}
	var m manifest
	data, err := read(abs, ManifestFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		m.Name = filepath.Base(abs) // Claude Code: the manifest is optional
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %v (fix the JSON, or run `claude plugin validate` on it)", filepath.Join(abs, ManifestFile), err)
		}
		if m.Name == "" {
			return nil, fmt.Errorf("%s: \"name\" is missing: a plugin needs one", filepath.Join(abs, ManifestFile))
		}
	}
	if err := CheckName("plugin", m.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(abs, ManifestFile), err)
	}
	p.Name, p.Version, p.Description = m.Name, m.Version, m.Description
	p.Commands = p.parts("commands", "commands", m.Commands)
	p.Agents = p.parts("agents", "agents", m.Agents)
	p.Skills = p.parts("skills", "skills", m.Skills)
	p.OutputStyles = p.parts("outputStyles", "output-styles", m.OutputStyles)
	p.loadHooks(m.Hooks)
	p.loadMCP(m.MCPServers)
	return p, nil
}

// parts are the default folder of a part (when it exists) and the
// manifest's own paths, each inside the plugin.
func (p *Plugin) parts(field, def string, extra paths) []string {
	var out []string
	if fi, err := os.Stat(filepath.Join(p.Dir, def)); err == nil && fi.IsDir() {
		out = append(out, filepath.Join(p.Dir, def))
	}
	for _, rel := range extra {
		abs, err := p.inside(rel)
		if err != nil {
			p.warn("%s: %v", field, err)
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			p.warn("%s: %s does not exist", field, rel)
			continue
		}
		if len(out) > 0 && out[0] == abs {
			continue
		}
		out = append(out, abs)
	}
	return out
}

// inside resolves a manifest path ("./x/y") under the plugin's folder,
// refusing one that leaves it.
func (p *Plugin) inside(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q: give a path relative to the plugin folder (./...)", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leaves the plugin folder", rel)
	}
	return filepath.Join(p.Dir, clean), nil
}

func (p *Plugin) warn(format string, args ...any) {
	p.Warnings = append(p.Warnings, fmt.Sprintf("plugin %s: ", p.Name)+fmt.Sprintf(format, args...))
}

// read reads a JSON file of a plugin or marketplace folder: inside it
// (links resolved), regular, capped.
func read(root, rel string) ([]byte, error) {
	return projectfile.Read(root, filepath.Join(root, filepath.FromSlash(rel)), projectfile.SettingsLimit)
}

// withRoot decodes raw JSON and replaces ${CLAUDE_PLUGIN_ROOT} in every
// string with the plugin's folder, then encodes it again for the typed
// decode (done on a value, so a path with quotes stays valid JSON).
func (p *Plugin) withRoot(raw []byte) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	v = replaceStrings(v, func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "${"+RootVar+"}", p.Dir), "$"+RootVar, p.Dir)
	})
	return json.Marshal(v)
}

func replaceStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i := range t {
			t[i] = replaceStrings(t[i], f)
		}
	case map[string]any:
		for k := range t {
			t[k] = replaceStrings(t[k], f)
		}
	}
	return v
}
