package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// MarketplaceFile is where a marketplace's manifest lives, under its
// folder or repository.
const MarketplaceFile = ".claude-plugin/marketplace.json"

// Marketplace is a marketplace's manifest as read.
type Marketplace struct {
	Name     string  `json:"name"`
	Plugins  []Entry `json:"plugins"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	// Dir is the folder it was read from.
	Dir string `json:"-"`
}

// Entry is one plugin a marketplace lists.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Source      Source `json:"source"`
}

// Source is where an entry's plugin is: a path inside the marketplace
// ("./plugins/x"), or a git repository ({"source": "url"|"github"|
// "git-subdir", ...}).
type Source struct {
	Path string // a relative path in the marketplace
	// Git is a repository URL to clone; Subdir the plugin's folder in it.
	Git, Ref, Subdir string
}

func (s *Source) UnmarshalJSON(b []byte) error {
	if json.Unmarshal(b, &s.Path) == nil {
		return nil
	}
	var o struct {
		Source string `json:"source"`
		URL    string `json:"url"`
		Repo   string `json:"repo"`
		Path   string `json:"path"`
		Ref    string `json:"ref"`
		SHA    string `json:"sha"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New(`"source" must be a path ("./plugins/name") or an object such as {"source": "url", "url": "https://host/repo.git"}`)
	}
	s.Ref = o.SHA
	if s.Ref == "" {
		s.Ref = o.Ref
	}
	switch o.Source {
	case "url", "git":
		s.Git = o.URL
	case "github":
		s.Git = "https://github.com/" + o.Repo + ".git"
	case "git-subdir":
		s.Git, s.Subdir = o.URL, o.Path
		if s.Git == "" && o.Repo != "" {
			s.Git = "https://github.com/" + o.Repo + ".git"
		}
	default:
		return fmt.Errorf("plugin source %q is not supported by tandem (use a path in the marketplace or a git URL)", o.Source)
	}
	if s.Git == "" {
		return fmt.Errorf("plugin source %q has no url", o.Source)
	}
	return nil
}

// ReadMarketplace reads dir's marketplace.json. Each entry's name is
// checked here; an entry with a bad name is an error for the whole file
// (a marketplace is its author's, to fix).
func ReadMarketplace(dir string) (*Marketplace, error) {
	data, err := read(dir, MarketplaceFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: a marketplace needs one (or give a plugin folder with --plugin-dir)", dir, MarketplaceFile)
		}
		return nil, err
	}
	m := &Marketplace{Dir: dir}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, MarketplaceFile), err)
	}
	if err := CheckName("marketplace", m.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MarketplaceFile), err)
	}
	for _, e := range m.Plugins {
		if err := CheckName("plugin", e.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MarketplaceFile), err)
		}
	}
	return m, nil
}

// Find returns the named entry.
func (m *Marketplace) Find(name string) (Entry, bool) {
	for _, e := range m.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// localDir is where a path source's plugin is, inside the marketplace
// (metadata.pluginRoot applies to a bare name).
func (m *Marketplace) localDir(e Entry) (string, error) {
	rel := e.Source.Path
	if m.Metadata.PluginRoot != "" && !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") {
		rel = filepath.Join(m.Metadata.PluginRoot, rel)
	}
	return insideDir(m.Dir, rel)
}

// insideDir resolves rel under root, refusing what leaves it.
func insideDir(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q: give a path relative to the marketplace folder (./plugins/name)", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leaves the marketplace folder", rel)
	}
	abs := filepath.Join(root, clean)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("plugin folder %s: %w", abs, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leads out of the marketplace folder (a link)", rel)
	}
	return abs, nil
}
