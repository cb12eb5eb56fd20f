package catalog

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRefreshedMergeAndSave(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data", RefreshedFile)
	if r, err := LoadRefreshed(path); err != nil || len(r.Providers) != 0 {
		t.Fatalf("missing file: %+v %v", r, err)
	}
	r := Refreshed{FetchedAt: time.Now().UTC().Truncate(time.Second), Providers: map[string][]string{
		"anthropic": {"claude-sonnet-4-5", "claude-brand-new"}, "openai": {"gpt-9"}}}
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadRefreshed(path)
	if err != nil || !back.FetchedAt.Equal(r.FetchedAt) || len(back.Providers["anthropic"]) != 2 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	all := c.Merge(back)
	base := len(c.Models())
	if len(all) != base+2 || all[base].ID != "claude-brand-new" || all[base].Price != nil || all[base+1].ID != "gpt-9" {
		t.Errorf("merged extras: %+v", all[base:])
	}
	// Known models keep their prices: none of the known one is duplicated.
	for _, m := range all[base:] {
		if m.ID == "claude-sonnet-4-5" {
			t.Error("a known model was listed again without prices")
		}
	}
	os.WriteFile(path, []byte("{"), 0o600)
	if _, err := LoadRefreshed(path); err == nil {
		t.Error("a damaged file was accepted")
	}
}
