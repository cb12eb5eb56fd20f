package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Manager adds marketplaces and installs plugins under tandem's data
// folder (plugins/: plugins.json, marketplaces/ for cloned ones, cache/
// for installed copies).
type Manager struct {
	DataDir string
	// Git is the git program ("" : "git" from PATH).
	Git string
	// Now stamps records (nil: time.Now).
	Now func() time.Time
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now().UTC()
}

// git runs git with no prompt for credentials (a private repository
// fails with git's message instead of waiting on a terminal).
func (m *Manager) git(ctx context.Context, dir string, args ...string) error {
	bin := m.Git
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("git is not installed: install it to add a marketplace from a git repository")
		}
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

// clone clones url into dir (which must not exist), shallow, at ref when
// given. "--" keeps a URL starting with "-" from being read as an option.
func (m *Manager) clone(ctx context.Context, url, ref, dir string) error {
	args := []string{"clone", "--quiet", "--depth", "1"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", url, dir)
	return m.git(ctx, "", args...)
}

// isLocalDir says whether source is a marketplace folder, read in place;
// anything else (a URL, a bare repository's folder) is cloned with git.
func isLocalDir(source string) bool {
	fi, err := os.Stat(source)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(source, filepath.FromSlash(MarketplaceFile)))
	return err == nil
}

// gitURL turns the "owner/repo" shorthand into GitHub's URL.
func gitURL(source string) string {
	if !strings.Contains(source, ":") && strings.Count(source, "/") == 1 && !strings.HasPrefix(source, ".") && !strings.HasPrefix(source, "/") {
		return "https://github.com/" + source + ".git"
	}
	return source
}

// AddMarketplace adds a marketplace from a folder (read in place) or a
// git repository (cloned into the data folder). It returns its manifest.
func (m *Manager) AddMarketplace(ctx context.Context, source string) (*Marketplace, error) {
	st, err := m.Load()
	if err != nil {
		return nil, err
	}
	rec := MarketplaceRecord{Source: source, AddedAt: m.now()}
	var mk *Marketplace
	if isLocalDir(source) {
		abs, err := filepath.Abs(source)
		if err != nil {
			return nil, err
		}
		if mk, err = ReadMarketplace(abs); err != nil {
			return nil, err
		}
		rec.Source, rec.Dir = abs, abs
	} else {
		url := gitURL(source)
		base := filepath.Join(m.root(), "marketplaces")
		if err := os.MkdirAll(base, 0o700); err != nil {
			return nil, fmt.Errorf("plugins: %w", err)
		}
		tmp, err := os.MkdirTemp(base, ".clone-")
		if err != nil {
			return nil, fmt.Errorf("plugins: %w", err)
		}
		clone := filepath.Join(tmp, "repo")
		if err := m.clone(ctx, url, "", clone); err != nil {
			_ = os.RemoveAll(tmp)
			return nil, fmt.Errorf("marketplace %s: %w (give a folder or a git URL holding %s)", source, err, MarketplaceFile)
		}
		if mk, err = ReadMarketplace(clone); err != nil {
			_ = os.RemoveAll(tmp)
			return nil, err
		}
		if _, dup := st.Marketplaces[mk.Name]; dup {
			_ = os.RemoveAll(tmp)
			return nil, fmt.Errorf("marketplace %q is already added: `tandem plugin marketplace update %s` refreshes it, `remove` drops it", mk.Name, mk.Name)
		}
		dest := filepath.Join(base, mk.Name)
		_ = os.RemoveAll(dest) // a leftover of a marketplace removed by hand
		if err := os.Rename(clone, dest); err != nil {
			_ = os.RemoveAll(tmp)
			return nil, fmt.Errorf("plugins: %w", err)
		}
		_ = os.RemoveAll(tmp)
		mk.Dir = dest
		rec.Source, rec.Git, rec.Dir = url, true, dest
	}
	if _, dup := st.Marketplaces[mk.Name]; dup {
		return nil, fmt.Errorf("marketplace %q is already added: `tandem plugin marketplace remove %s` first to add it from elsewhere", mk.Name, mk.Name)
	}
	st.Marketplaces[mk.Name] = rec
	return mk, m.save(st)
}

// RemoveMarketplace forgets a marketplace (and deletes its clone); its
// installed plugins stay installed.
func (m *Manager) RemoveMarketplace(name string) error {
	if err := CheckName("marketplace", name); err != nil {
		return err
	}
	st, err := m.Load()
	if err != nil {
		return err
	}
	rec, ok := st.Marketplaces[name]
	if !ok {
		return fmt.Errorf("no marketplace %q: `tandem plugin marketplace list` shows them", name)
	}
	delete(st.Marketplaces, name)
	if err := m.save(st); err != nil {
		return err
	}
	if rec.Git && !rec.Imported {
		return os.RemoveAll(filepath.Join(m.root(), "marketplaces", name))
	}
	return nil
}

// UpdateMarketplace pulls a cloned marketplace again.
func (m *Manager) UpdateMarketplace(ctx context.Context, name string) error {
	st, err := m.Load()
	if err != nil {
		return err
	}
	rec, ok := st.Marketplaces[name]
	if !ok {
		return fmt.Errorf("no marketplace %q: `tandem plugin marketplace list` shows them", name)
	}
	if !rec.Git || rec.Imported {
		return nil // a folder is read in place
	}
	return m.git(ctx, rec.Dir, "pull", "--quiet", "--ff-only")
}

// marketplace reads an added marketplace's manifest.
func (m *Manager) marketplace(st *State, name string) (*Marketplace, error) {
	rec, ok := st.Marketplaces[name]
	if !ok {
		return nil, fmt.Errorf("no marketplace %q: add it with `tandem plugin marketplace add PATH|GIT_URL`", name)
	}
	return ReadMarketplace(rec.Dir)
}

// Install installs (or reinstalls) a plugin from an added marketplace:
// its folder is checked, then copied into the data folder, and the
// plugin as installed is returned for the caller to show what it enables.
func (m *Manager) Install(ctx context.Context, idText string) (*Plugin, error) {
	id, err := ParseID(idText)
	if err != nil {
		return nil, err
	}
	st, err := m.Load()
	if err != nil {
		return nil, err
	}
	mk, err := m.marketplace(st, id.Marketplace)
	if err != nil {
		return nil, err
	}
	e, ok := mk.Find(id.Name)
	if !ok {
		return nil, fmt.Errorf("marketplace %s has no plugin %q: `tandem plugin marketplace list` shows what it offers", id.Marketplace, id.Name)
	}
	cache := filepath.Join(m.root(), "cache", id.Marketplace)
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, ".install-")
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	defer os.RemoveAll(tmp)
	var src string
	if e.Source.Git != "" {
		clone := filepath.Join(tmp, "clone")
		if err := m.clone(ctx, e.Source.Git, e.Source.Ref, clone); err != nil {
			return nil, fmt.Errorf("plugin %s: %w", id, err)
		}
		src = clone
		if e.Source.Subdir != "" {
			if src, err = insideDir(clone, e.Source.Subdir); err != nil {
				return nil, fmt.Errorf("plugin %s: %w", id, err)
			}
		}
	} else if src, err = mk.localDir(e); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", id, err)
	}
	staged := filepath.Join(tmp, "plugin")
	if err := copyTree(src, staged); err != nil {
		return nil, fmt.Errorf("plugin %s: copy: %w", id, err)
	}
	p, err := Load(staged, id.String())
	if err != nil {
		return nil, fmt.Errorf("plugin %s is broken, not installed: %w", id, err)
	}
	if p.Name != id.Name {
		return nil, fmt.Errorf("plugin %s: its plugin.json names it %q; the marketplace's entry and the manifest must agree", id, p.Name)
	}
	dest := filepath.Join(cache, id.Name)
	if err := os.RemoveAll(dest); err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	if err := os.Rename(staged, dest); err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	if p, err = Load(dest, id.String()); err != nil {
		return nil, err
	}
	enabled := true
	if prev, ok := st.Plugins[id.String()]; ok {
		enabled = prev.Enabled // an update keeps the user's choice
	}
	st.Plugins[id.String()] = Record{Name: id.Name, Marketplace: id.Marketplace, Version: firstNonEmpty(p.Version, e.Version),
		Dir: dest, Enabled: enabled, InstalledAt: m.now()}
	return p, m.save(st)
}

// Uninstall removes an installed plugin (an imported one is only
// forgotten: its files are Claude Code's).
func (m *Manager) Uninstall(idText string) error {
	st, rec, err := m.record(idText)
	if err != nil {
		return err
	}
	delete(st.Plugins, rec.ID().String())
	if err := m.save(st); err != nil {
		return err
	}
	if rec.Imported {
		return nil
	}
	return os.RemoveAll(filepath.Join(m.root(), "cache", rec.Marketplace, rec.Name))
}

// SetEnabled enables or disables an installed plugin.
func (m *Manager) SetEnabled(idText string, on bool) error {
	st, rec, err := m.record(idText)
	if err != nil {
		return err
	}
	rec.Enabled = on
	st.Plugins[rec.ID().String()] = rec
	return m.save(st)
}

// Update pulls the plugin's marketplace (when cloned) and installs the
// plugin again from it.
func (m *Manager) Update(ctx context.Context, idText string) (*Plugin, error) {
	_, rec, err := m.record(idText)
	if err != nil {
		return nil, err
	}
	if rec.Imported {
		return nil, fmt.Errorf("plugin %s is Claude Code's install: update it with `claude plugin update`, or `tandem plugin install %s` to keep a copy of tandem's own", rec.ID(), rec.ID())
	}
	if err := m.UpdateMarketplace(ctx, rec.Marketplace); err != nil {
		return nil, err
	}
	return m.Install(ctx, rec.ID().String())
}

func (m *Manager) record(idText string) (*State, Record, error) {
	id, err := ParseID(idText)
	if err != nil {
		return nil, Record{}, err
	}
	st, err := m.Load()
	if err != nil {
		return nil, Record{}, err
	}
	rec, ok := st.Plugins[id.String()]
	if !ok {
		return nil, Record{}, fmt.Errorf("plugin %s is not installed: `tandem plugin list` shows what is", id)
	}
	return st, rec, nil
}

// Enabled loads the enabled plugins. A plugin that cannot be loaded is an
// error in errs; the others load.
func (m *Manager) Enabled() (out []*Plugin, errs []error) {
	st, err := m.Load()
	if err != nil {
		return nil, []error{err}
	}
	for _, rec := range st.Sorted() {
		if !rec.Enabled {
			continue
		}
		p, err := Load(rec.Dir, rec.ID().String())
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s not loaded: %w", rec.ID(), err))
			continue
		}
		out = append(out, p)
	}
	return out, errs
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
