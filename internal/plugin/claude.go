package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/tandem-agent/tandem/internal/projectfile"
)

// ClaudeInstall is a plugin Claude Code installed (~/.claude/plugins).
type ClaudeInstall struct {
	ID      ID
	Dir     string
	Version string
	Enabled bool
}

// ClaudeMarketplace is a marketplace Claude Code knows.
type ClaudeMarketplace struct {
	Name, Dir string
}

// ClaudePlugins reads what Claude Code installed under home:
// ~/.claude/plugins/installed_plugins.json (version 1: one record per id;
// version 2: a list of installs per id, the user-scoped one used),
// known_marketplaces.json, and ~/.claude/settings.json's enabledPlugins.
// Missing files mean nothing installed.
func ClaudePlugins(home string) ([]ClaudeInstall, []ClaudeMarketplace, error) {
	dir := filepath.Join(home, ".claude", "plugins")
	readJSON := func(file string, v any) error {
		data, err := projectfile.ReadOwn(file, projectfile.SettingsLimit)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		return nil
	}
	var installed struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := readJSON(filepath.Join(dir, "installed_plugins.json"), &installed); err != nil {
		return nil, nil, err
	}
	var known map[string]struct {
		InstallLocation string `json:"installLocation"`
	}
	if err := readJSON(filepath.Join(dir, "known_marketplaces.json"), &known); err != nil {
		return nil, nil, err
	}
	var settings struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if err := readJSON(filepath.Join(home, ".claude", "settings.json"), &settings); err != nil {
		return nil, nil, err
	}
	type install struct {
		Scope       string `json:"scope"`
		InstallPath string `json:"installPath"`
		Version     string `json:"version"`
	}
	var out []ClaudeInstall
	for key, raw := range installed.Plugins {
		id, err := ParseID(key)
		if err != nil {
			continue // not a name tandem can use as a folder or prefix
		}
		var one install
		var many []install
		if json.Unmarshal(raw, &many) == nil {
			for _, in := range many {
				if one.InstallPath == "" || in.Scope == "user" {
					one = in
				}
			}
		} else if err := json.Unmarshal(raw, &one); err != nil {
			continue
		}
		if one.InstallPath == "" {
			continue
		}
		enabled, set := settings.EnabledPlugins[key]
		out = append(out, ClaudeInstall{ID: id, Dir: one.InstallPath, Version: one.Version, Enabled: enabled || !set})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.String() < out[j].ID.String() })
	var mks []ClaudeMarketplace
	for name, k := range known {
		if CheckName("marketplace", name) != nil || k.InstallLocation == "" {
			continue
		}
		mks = append(mks, ClaudeMarketplace{Name: name, Dir: k.InstallLocation})
	}
	sort.Slice(mks, func(i, j int) bool { return mks[i].Name < mks[j].Name })
	return out, mks, nil
}

// NotImported are Claude Code's installs tandem has no record of, to
// offer for import.
func (m *Manager) NotImported(home string) ([]ClaudeInstall, error) {
	ins, _, err := ClaudePlugins(home)
	if err != nil {
		return nil, err
	}
	st, err := m.Load()
	if err != nil {
		return nil, err
	}
	var out []ClaudeInstall
	for _, in := range ins {
		if _, ok := st.Plugins[in.ID.String()]; !ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// ImportClaude records Claude Code's marketplaces and plugins (those not
// yet known), used where Claude Code keeps them, enabled as Claude Code
// has them. Each plugin is loaded first: a broken one is reported in errs
// and not imported. It returns the plugins imported.
func (m *Manager) ImportClaude(home string) (imported []*Plugin, errs []error) {
	ins, mks, err := ClaudePlugins(home)
	if err != nil {
		return nil, []error{err}
	}
	st, err := m.Load()
	if err != nil {
		return nil, []error{err}
	}
	for _, mk := range mks {
		if _, ok := st.Marketplaces[mk.Name]; !ok {
			st.Marketplaces[mk.Name] = MarketplaceRecord{Source: mk.Dir, Dir: mk.Dir, AddedAt: m.now(), Imported: true}
		}
	}
	for _, in := range ins {
		if _, ok := st.Plugins[in.ID.String()]; ok {
			continue
		}
		p, err := Load(in.Dir, in.ID.String())
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s not imported: %w", in.ID, err))
			continue
		}
		st.Plugins[in.ID.String()] = Record{Name: in.ID.Name, Marketplace: in.ID.Marketplace, Version: firstNonEmpty(in.Version, p.Version),
			Dir: p.Dir, Enabled: in.Enabled, InstalledAt: m.now(), Imported: true}
		imported = append(imported, p)
	}
	if err := m.save(st); err != nil {
		errs = append(errs, err)
	}
	return imported, errs
}
