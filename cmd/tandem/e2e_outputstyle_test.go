package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// systemText is the system prompt of a request.
func systemText(t *testing.T, x *e2e) string {
	t.Helper()
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	b, _ := reqs[0].Body["system"]
	var sb strings.Builder
	switch v := b.(type) {
	case string:
		sb.WriteString(v)
	case []any:
		for _, blk := range v {
			if m, ok := blk.(map[string]any); ok {
				s, _ := m["text"].(string)
				sb.WriteString(s + "\n")
			}
		}
	}
	return sb.String()
}

// Claude Code's "outputStyle" setting chooses an output style: a user
// style file without keep-coding-instructions replaces the software
// engineering sections; a built-in (Explanatory) is added to them; a
// plugin's style is named plugin:style; a name no style has is a warning.
func TestOutputStyles(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	writeAt(t, filepath.Join(x.Home, ".claude", "output-styles", "concise.md"), "---\nname: Concise\ndescription: Short answers\n---\nCONCISE-STYLE-TEXT: answer in one line.\n")
	settings := filepath.Join(x.Home, ".claude", "settings.json")
	run := func(style string, args ...string) (string, runResult) {
		t.Helper()
		writeJSONFile(t, settings, map[string]any{"outputStyle": style})
		y := withScript(t, x, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
		r := y.Run(streamArgs("hi", args...)...)
		mustSucceed(t, r)
		return systemText(t, y), r
	}
	base, _ := run("default")
	const workMarker = "# How to work" // a heading of the work section, which a style without coding instructions drops
	if !strings.Contains(base, workMarker) {
		t.Fatalf("the default prompt lacks %q; the test's marker is stale:\n%.2000s", workMarker, base)
	}
	concise, _ := run("Concise")
	if !strings.Contains(concise, "# Output Style: Concise") || !strings.Contains(concise, "CONCISE-STYLE-TEXT") || strings.Contains(concise, workMarker) {
		t.Errorf("Concise style: want its text in place of the work section:\n%.3000s", concise)
	}
	expl, _ := run("explanatory")
	if !strings.Contains(expl, "★ Insight") || !strings.Contains(expl, workMarker) {
		t.Errorf("Explanatory style: want insights added to the coding sections:\n%.3000s", expl)
	}
	dir := filepath.Join(t.TempDir(), "greeter")
	writeGreeter(t, dir, "/bin/true")
	pirate, _ := run("greeter:Pirate", "--plugin-dir", dir)
	if !strings.Contains(pirate, "PIRATE-STYLE-PROMPT") {
		t.Errorf("a plugin's style was not used:\n%.3000s", pirate)
	}
	none, r := run("NoSuchStyle")
	if strings.Contains(none, "# Output Style") || !strings.Contains(r.Stderr, "NoSuchStyle") || !strings.Contains(r.Stderr, "Concise") {
		t.Errorf("an unknown style: want a warning naming the choices and no style:\n%s", r.Stderr)
	}
}
