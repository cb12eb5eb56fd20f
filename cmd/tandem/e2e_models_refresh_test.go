package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// models --refresh keeps the providers' lists in the data folder; a model
// the catalog does not know is then listed without prices, known ones
// keep theirs. A provider that fails keeps its old list and exit is 1.
func TestE2EModelsRefresh(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Models: []string{"claude-sonnet-4-5", "claude-fresh-1"}})
	r := x.Run("models", "--refresh", "--json")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	var ms []catalog.ModelInfo
	if err := json.Unmarshal([]byte(r.Stdout), &ms); err != nil {
		t.Fatal(err)
	}
	var fresh, known *catalog.ModelInfo
	for i := range ms {
		switch {
		case ms[i].Provider == "anthropic" && ms[i].ID == "claude-fresh-1":
			fresh = &ms[i]
		case ms[i].Provider == "anthropic" && ms[i].ID == "claude-sonnet-4-5":
			known = &ms[i]
		}
	}
	if fresh == nil || fresh.Price != nil || known == nil || known.Price == nil {
		t.Fatalf("fresh %+v known %+v", fresh, known)
	}
	// The status on the day is in the JSON, and the refresh says where
	// the live list and the catalog part.
	if known.Status != catalog.Retired || fresh.Status != catalog.Active {
		t.Errorf("status: known %q fresh %q", known.Status, fresh.Status)
	}
	for _, want := range []string{
		"anthropic: new (not in the catalog, prices unknown): claude-fresh-1\n",
		"anthropic: gone (active in the catalog, not live): claude-fable-5-2, claude-haiku-5-5, claude-opus-5-5, claude-sonnet-5-5\n",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	saved, err := catalog.LoadRefreshed(filepath.Join(x.Home, catalog.RefreshedFile))
	if err != nil || len(saved.Providers["anthropic"]) != 2 || len(saved.Providers["openai"]) != 2 {
		t.Fatalf("saved list %+v %v", saved, err)
	}
	// Later listings without --refresh still show it.
	plain := x.Run("models")
	if !strings.Contains(plain.Stdout, "anthropic/claude-fresh-1") {
		t.Errorf("plain listing lacks the refreshed model:\n%s", plain.Stdout)
	}
	for _, re := range []string{`anthropic/claude-sonnet-4-5 +retired 2026-11-30 `, `anthropic/claude-opus-4-5 +deprecated, retires 2027-01-22 `,
		`anthropic/claude-opus-4-8 +legacy `, `anthropic/claude-sonnet-5-5 +active `} {
		if !regexp.MustCompile(re).MatchString(plain.Stdout) {
			t.Errorf("listing lacks %s:\n%s", re, plain.Stdout)
		}
	}

	x.Env = append(x.Env, "OPENAI_BASE_URL=http://127.0.0.1:1/v1")
	r = x.Run("models", "--refresh")
	if r.Code != 1 || !strings.Contains(r.Stderr, "refresh openai") {
		t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	saved, _ = catalog.LoadRefreshed(filepath.Join(x.Home, catalog.RefreshedFile))
	if len(saved.Providers["openai"]) != 2 {
		t.Errorf("openai's previous list was lost: %+v", saved)
	}
}
