package catalog

import (
	"slices"
	"sort"
	"time"
)

// Drift is how one provider's live model list differs from the catalog.
type Drift struct {
	Provider string `json:"provider"`
	// New are live ids the catalog does not list (prices unknown).
	New []string `json:"new,omitempty"`
	// Gone are models the catalog lists as active (on day now) that the
	// live list lacks.
	Gone []string `json:"gone,omitempty"`
	// Unpriced are live models the catalog lists without a price.
	Unpriced []string `json:"unpriced,omitempty"`
}

// Compare sets each provider's live list in r against the catalog on day
// now, so a catalog that fell behind the providers shows where. A live id
// matches a model by its id, API id or aliases (a dated snapshot id).
func (c *Catalog) Compare(r Refreshed, now time.Time) []Drift {
	var out []Drift
	for prov, ids := range r.Providers {
		d := Drift{Provider: prov}
		seen := map[*ModelInfo]bool{}
		for _, id := range ids {
			info, _ := c.find(prov, id)
			switch {
			case info == nil:
				d.New = append(d.New, id)
			case info.Price == nil && !seen[info]:
				d.Unpriced = append(d.Unpriced, info.ID)
			}
			seen[info] = true
		}
		for i := range c.models {
			m := &c.models[i]
			if m.Provider == prov && !seen[m] && m.StatusAt(now) == Active && !slices.Contains(ids, m.ID) {
				d.Gone = append(d.Gone, m.ID)
			}
		}
		sort.Strings(d.New)
		sort.Strings(d.Gone)
		sort.Strings(d.Unpriced)
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}
