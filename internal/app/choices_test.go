package app

import (
	"strings"
	"testing"
	"time"
)

// The pickers (TUI, web, ACP, the CLI protocol) read ModelChoices and
// ServerCatalog: a retired model is not offered, a legacy or deprecated
// one carries its status, an active one none.
func TestModelChoicesCarryStatus(t *testing.T) {
	a, _ := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	a.models.clock = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	got := map[string]string{}
	for _, c := range a.ModelChoices() {
		got[c.ID] = c.Label()
	}
	for id, want := range map[string]string{
		"anthropic/claude-sonnet-5-5": "Claude Sonnet 5.5",
		"anthropic/claude-opus-4-8":   "(legacy)",
		"anthropic/claude-opus-4-5":   "(deprecated, retires 2027-01-22)",
	} {
		if l, ok := got[id]; !ok || !strings.Contains(l, want) {
			t.Errorf("%s: label %q (listed %v), want it to hold %q", id, l, ok, want)
		}
	}
	if l, ok := got["anthropic/claude-sonnet-4-5"]; ok {
		t.Errorf("a retired model is offered: %q", l)
	}
	// On the day claude-opus-4-5 retires it leaves the lists.
	a.models.clock = func() time.Time { return time.Date(2027, 1, 22, 0, 0, 0, 0, time.UTC) }
	for _, c := range a.ModelChoices() {
		if c.ID == "anthropic/claude-opus-4-5" {
			t.Errorf("offered on its retirement day: %+v", c)
		}
	}
	web := map[string]string{}
	for _, m := range (ServerCatalog{App: a}).Models() {
		web[m.ID] = m.Status
	}
	if _, ok := web["anthropic/claude-opus-4-5"]; ok || web["anthropic/claude-opus-4-8"] != "legacy" || web["anthropic/claude-sonnet-5-5"] != "" {
		t.Errorf("web list: opus-4-5 %q opus-4-8 %q sonnet-5-5 %q", web["anthropic/claude-opus-4-5"], web["anthropic/claude-opus-4-8"], web["anthropic/claude-sonnet-5-5"])
	}
}
