package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// /output-style in the terminal UI lists the styles (the user's own
// included) and saves a choice in the folder's .claude/settings.local.json,
// keeping the file's other keys; an unknown name is refused, naming the
// styles there are.
func TestE2ETUIOutputStyle(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	writeAt(t, filepath.Join(x.Home, ".claude", "output-styles", "terse.md"), "---\nname: Terse\ndescription: one-line answers\n---\nAnswer in one line.\n")
	local := filepath.Join(x.Work, ".claude", "settings.local.json")
	writeJSONFile(t, local, map[string]any{"permissions": map[string]any{"allow": []string{"Bash(ls)"}}})

	p := x.startTUI(120, 34, "--model", "anthropic/claude-sonnet-5-5")
	// The file's allow rule makes tandem ask for trust first.
	p.waitText("Trust this folder? [y/N]")
	p.typeText("y")
	p.keys("Enter")
	p.waitText("Ask tandem")
	p.typeText("/output-style")
	p.keys("Enter")
	p.waitText("Output styles")
	p.waitText("Terse — one-line answers")
	p.waitText("Explanatory")
	p.waitText("● Default") // the one in force

	p.typeText("/output-style nosuch")
	p.keys("Enter")
	p.waitText(`output style "nosuch" does not exist`)

	p.typeText("/output-style terse")
	p.keys("Enter")
	p.waitText("Output style terse saved in")
	raw, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		OutputStyle string `json:"outputStyle"`
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(raw, &got); err != nil || got.OutputStyle != "Terse" || len(got.Permissions.Allow) != 1 {
		t.Errorf("settings.local.json = %s (%v): want outputStyle Terse beside the permissions kept", raw, err)
	}
}
