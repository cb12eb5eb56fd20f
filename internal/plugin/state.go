package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
)

// stateFile is the record of added marketplaces and installed plugins,
// under tandem's data folder's plugins/ folder.
const stateFile = "plugins.json"

// State is what the user added and installed.
type State struct {
	Marketplaces map[string]MarketplaceRecord `json:"marketplaces"`
	Plugins      map[string]Record            `json:"plugins"`
}

// MarketplaceRecord is one added marketplace.
type MarketplaceRecord struct {
	// Source is what was added: a folder, or a git URL.
	Source string `json:"source"`
	Git    bool   `json:"git,omitempty"`
	// Dir holds its marketplace.json: the folder itself, or the clone in
	// tandem's data folder.
	Dir     string    `json:"dir"`
	AddedAt time.Time `json:"added_at"`
	// Imported: Claude Code's, read where Claude Code keeps it.
	Imported bool `json:"imported,omitempty"`
}

// Record is one installed plugin.
type Record struct {
	Name        string    `json:"name"`
	Marketplace string    `json:"marketplace"`
	Version     string    `json:"version,omitempty"`
	Dir         string    `json:"dir"`
	Enabled     bool      `json:"enabled"`
	InstalledAt time.Time `json:"installed_at"`
	// Imported: Claude Code's install, used where Claude Code keeps it
	// (uninstalling forgets it; Claude Code's files stay).
	Imported bool `json:"imported,omitempty"`
}

// ID is the record's id.
func (r Record) ID() ID { return ID{r.Name, r.Marketplace} }

func (m *Manager) root() string { return filepath.Join(m.DataDir, "plugins") }

// Load reads the state ("" file: nothing added yet).
func (m *Manager) Load() (*State, error) {
	st := &State{Marketplaces: map[string]MarketplaceRecord{}, Plugins: map[string]Record{}}
	f := filepath.Join(m.root(), stateFile)
	data, err := regular.ReadFile(f)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("%s: %v (fix or remove the file; it lists your marketplaces and plugins)", f, err)
	}
	if st.Marketplaces == nil {
		st.Marketplaces = map[string]MarketplaceRecord{}
	}
	if st.Plugins == nil {
		st.Plugins = map[string]Record{}
	}
	return st, nil
}

// save writes the state atomically.
func (m *Manager) save(st *State) error {
	if err := os.MkdirAll(m.root(), 0o700); err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(m.root(), ".plugins-*.json")
	if err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("plugins: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(m.root(), stateFile)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("plugins: %w", err)
	}
	return nil
}

// Sorted are the state's plugins by id.
func (st *State) Sorted() []Record {
	out := make([]Record, 0, len(st.Plugins))
	for _, r := range st.Plugins {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID().String() < out[j].ID().String() })
	return out
}

// MarketplaceNames are the added marketplaces' names, sorted.
func (st *State) MarketplaceNames() []string {
	out := make([]string, 0, len(st.Marketplaces))
	for n := range st.Marketplaces {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
