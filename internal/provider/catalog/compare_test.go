package catalog

import (
	"slices"
	"testing"
	"time"
)

// The live lists against the catalog: an unknown id is new, an active
// model missing from the list is gone (a deprecated or retired one is
// not), a dated alias matches its model, an unpriced row is named.
func TestCompareLiveLists(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	drift := c.Compare(Refreshed{Providers: map[string][]string{
		"anthropic": {"claude-sonnet-5-5", "claude-opus-4-5-20251101", "claude-new-9"},
		"openai":    {"gpt-6-luna", "gpt-6.2-sol", "gpt-6.2-sol"},
	}}, now)
	if len(drift) != 2 || drift[0].Provider != "anthropic" || drift[1].Provider != "openai" {
		t.Fatalf("drift %+v", drift)
	}
	a, o := drift[0], drift[1]
	if !slices.Equal(a.New, []string{"claude-new-9"}) || len(a.Unpriced) != 0 {
		t.Errorf("anthropic new %v unpriced %v", a.New, a.Unpriced)
	}
	if !slices.Equal(a.Gone, []string{"claude-fable-5-2", "claude-haiku-5-5", "claude-opus-5-5"}) {
		t.Errorf("anthropic gone %v", a.Gone)
	}
	if !slices.Equal(o.Unpriced, []string{"gpt-6-luna"}) || len(o.New) != 0 {
		t.Errorf("openai unpriced %v new %v", o.Unpriced, o.New)
	}
	if slices.Contains(o.Gone, "gpt-6.2-sol") || slices.Contains(o.Gone, "gpt-5-codex") || !slices.Contains(o.Gone, "gpt-5.5") {
		t.Errorf("openai gone %v", o.Gone)
	}
}

func TestStatusLabel(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for l, want := range map[Lifecycle]string{
		{}:               "",
		{Status: Active}: "",
		{Status: Legacy}: "legacy",
		{Status: Deprecated, Retires: "2027-01-22"}: "deprecated, retires 2027-01-22",
		{Status: Deprecated, Retires: "2026-11-30"}: "retired 2026-11-30",
		{Status: Retired}: "retired",
	} {
		if got := l.StatusLabel(now); got != want {
			t.Errorf("%+v: %q, want %q", l, got, want)
		}
	}
}
