package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// RefreshedFile is the name of the local list of models in tandem's data
// folder that `tandem models --refresh` writes.
const RefreshedFile = "models.json"

// Refreshed is what providers' model-list endpoints said, by provider.
// It adds model ids only: prices, context windows and capabilities stay
// the embedded catalog's, which a listing does not carry.
type Refreshed struct {
	FetchedAt time.Time           `json:"fetched_at"`
	Providers map[string][]string `json:"providers"`
}

// LoadRefreshed reads the local list; a missing file is an empty list.
func LoadRefreshed(path string) (Refreshed, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Refreshed{}, nil
	}
	if err != nil {
		return Refreshed{}, fmt.Errorf("read the refreshed model list: %w", err)
	}
	var r Refreshed
	if err := json.Unmarshal(data, &r); err != nil {
		return Refreshed{}, fmt.Errorf("the refreshed model list %s is damaged (run `tandem models --refresh` again): %w", path, err)
	}
	return r, nil
}

// Save writes r atomically (a crash leaves the old list or the new one).
func (r Refreshed) Save(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save the model list: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the model list: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save the model list: %w", err)
	}
	return nil
}

// Merge lists the catalog's models, then the refreshed ids it does not
// know (provider and id only: prices unknown), sorted by provider and id.
func (c *Catalog) Merge(r Refreshed) []ModelInfo {
	out := c.Models()
	var extra []ModelInfo
	for prov, ids := range r.Providers {
		for _, id := range ids {
			if info, _ := c.find(prov, id); info != nil {
				continue
			}
			extra = append(extra, ModelInfo{ID: id, Provider: prov, Name: id})
		}
	}
	sort.Slice(extra, func(i, j int) bool {
		if extra[i].Provider != extra[j].Provider {
			return extra[i].Provider < extra[j].Provider
		}
		return extra[i].ID < extra[j].ID
	})
	return append(out, extra...)
}
