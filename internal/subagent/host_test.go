package subagent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
)

// The host's agents in Claude Code's --agents shape: every field tandem
// acts on is read; fields it does not act on are warnings, never fatal.
func TestParseHost(t *testing.T) {
	raw := json.RawMessage(`{
		"reviewer": {"description": "Reviews code", "prompt": "You review.", "tools": ["Read", "Grep", "Bash(git diff:*)"],
			"disallowedTools": ["Write"], "model": "haiku", "permissionMode": "plan", "maxTurns": 4, "skills": ["style"],
			"effort": "low", "mcpServers": ["github"], "brandNewField": 1},
		"plain": {"description": "Plain", "prompt": "P", "model": null}
	}`)
	var checked []string
	defs, warns, err := ParseHost(raw, "--agents", func(m string) error { checked = append(checked, m); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 2 || defs[0].Name != "plain" || defs[1].Name != "reviewer" {
		t.Fatalf("defs = %+v", defs)
	}
	r := defs[1]
	if r.Description != "Reviews code" || r.Prompt != "You review." || !slices.Equal(r.Tools, []string{"Read", "Grep", "Bash(git diff:*)"}) ||
		!slices.Equal(r.DisallowedTools, []string{"Write"}) || r.Model != "haiku" || r.PermissionMode != permission.Explore ||
		r.MaxTurns != 4 || !slices.Equal(r.Skills, []string{"style"}) || r.Effort != "low" || r.Scope != ScopeHost || r.File != "--agents" {
		t.Errorf("reviewer = %+v", r)
	}
	if !slices.Equal(checked, []string{"haiku"}) {
		t.Errorf("models checked: %v", checked)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{`agent "reviewer": field "mcpServers" is ignored`, `field "brandNewField" is not one tandem knows`} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	if defs, _, err := ParseHost(json.RawMessage(`null`), "initialize agents", nil); err != nil || defs != nil {
		t.Errorf("null agents: %v %v", defs, err)
	}
}

// Every problem names the source, the agent, the field and the fix.
func TestParseHostErrors(t *testing.T) {
	unknownModel := func(m string) error {
		if m == "gpt-nine" {
			return errors.New("unknown model")
		}
		return nil
	}
	for raw, want := range map[string][]string{
		`["reviewer"]`: {"--agents", "want a JSON object of agents"},
		`{"bad name": {"description": "d", "prompt": "p"}}`:                    {`agent "bad name"`, "letters, digits", "rename it"},
		`{"../x": {"description": "d", "prompt": "p"}}`:                        {`agent "../x"`, "rename it"},
		`{"r": "just a string"}`:                                               {`agent "r"`, "want an object", "got a string"},
		`{"r": {"description": "d", "prompt": "p", "tools": "Read"}}`:          {`agent "r"`, `field "tools"`, "want a list of strings", "got a string"},
		`{"r": {"description": "d", "prompt": "p", "tools": ["Bash(ls"]}}`:     {`agent "r"`, `field "tools"`, "missing closing parenthesis"},
		`{"r": {"description": "d", "prompt": "p", "disallowedTools": [1]}}`:   {`field "disallowedTools"`, "got a list"},
		`{"r": {"description": 3, "prompt": "p"}}`:                             {`field "description"`, "want a string, got a number"},
		`{"r": {"prompt": "p"}}`:                                               {`field "description"`, "missing"},
		`{"r": {"description": "d"}}`:                                          {`field "prompt"`, "missing"},
		`{"r": {"description": "d", "prompt": "p", "model": "gpt-nine"}}`:      {`agent "r"`, `field "model"`, "unknown model", "use inherit, sonnet"},
		`{"r": {"description": "d", "prompt": "p", "model": 4}}`:               {`field "model"`, "want a string"},
		`{"r": {"description": "d", "prompt": "p", "permissionMode": "yolo"}}`: {`field "permissionMode"`, "unknown permission mode"},
		`{"r": {"description": "d", "prompt": "p", "maxTurns": "many"}}`:       {`field "maxTurns"`, "whole number"},
		`{"r": {"description": "d", "prompt": "p", "effort": "huge"}}`:         {`field "effort"`, "low, medium"},
	} {
		_, _, err := ParseHost(json.RawMessage(raw), "--agents", unknownModel)
		if err == nil {
			t.Errorf("%s: accepted", raw)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", raw, err, w)
			}
		}
	}
}

// Host agents are the strongest: they override a same-named project file
// (with a notice) and a built-in.
func TestHostAgentsOverrideFiles(t *testing.T) {
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "reviewer.md"), []byte("---\nname: reviewer\ndescription: From the project.\n---\nProject prompt.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, _, err := ParseHost(json.RawMessage(`{"reviewer": {"description": "From the host", "prompt": "Host prompt."},
		"Explore": {"description": "Host explore", "prompt": "E"}}`), "initialize agents", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Load(host, skills.Place{Dir: proj, Scope: skills.ScopeProject}, skills.Place{Scope: skills.ScopeUser})
	if r := c.Get("reviewer"); r == nil || r.Prompt != "Host prompt." {
		t.Errorf("reviewer = %+v", r)
	}
	if e := c.Get("Explore"); e == nil || e.Prompt != "E" {
		t.Errorf("Explore = %+v", e)
	}
	if !strings.Contains(strings.Join(c.Notices, "\n"), `agent "reviewer": using the host one (initialize agents) over the project one`) {
		t.Errorf("notices = %v", c.Notices)
	}
}
