package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The Claude Code protocol: without --setting-sources an untrusted folder's
// gated settings are left out, named on stderr and as a stream-json
// system/warning message, and the run exits 0; --setting-sources without
// "project" reads no project file (no CLAUDE.md either); with "project" the
// host chose the folder's settings: trusted for the process.
func TestE2EDropInSettingSources(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	x.WriteFile(".claude/settings.json", `{"permissions":{"allow":["Bash(make:*)"]}}`)
	x.WriteFile("CLAUDE.md", "PROJECT-INSTRUCTIONS-MARK")
	args := []string{"-p", "hi", "--output-format", "stream-json", "--verbose"}

	r := x.Run(args...)
	if r.Code != 0 {
		t.Fatalf("an untrusted folder stopped the run: %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "is not trusted") || !strings.Contains(r.Stderr, "permissions.allow") || !strings.Contains(r.Stderr, "tandem trust "+x.Work) {
		t.Errorf("stderr should name what was left out:\n%s", r.Stderr)
	}
	warnings := 0
	for _, line := range strings.Split(r.Stdout, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["type"] == "system" && m["subtype"] == "warning" {
			warnings++
			if !strings.Contains(m["message"].(string), "permissions.allow") {
				t.Errorf("warning: %v", m)
			}
		}
	}
	if warnings != 1 {
		t.Errorf("want one system/warning line, got %d:\n%s", warnings, r.Stdout)
	}
	if !strings.Contains(x.lastRequestBody(), "PROJECT-INSTRUCTIONS-MARK") {
		t.Error("untrusted, CLAUDE.md should still be read")
	}

	// The SDK's default: no setting sources, so no project file is read.
	r = x.Run(append(args, "--setting-sources", "")...)
	if r.Code != 0 || strings.Contains(r.Stderr, "is not trusted") {
		t.Errorf("no sources: %d\n%s", r.Code, r.Stderr)
	}
	if strings.Contains(x.lastRequestBody(), "PROJECT-INSTRUCTIONS-MARK") {
		t.Error("--setting-sources '' still read the project's CLAUDE.md")
	}

	// "project": trusted for the process, nothing left out, nothing stored.
	r = x.Run(append(args, "--setting-sources", "user,project,local")...)
	if r.Code != 0 || strings.Contains(r.Stderr, "is not trusted") {
		t.Errorf("project source: %d\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(x.lastRequestBody(), "PROJECT-INSTRUCTIONS-MARK") {
		t.Error("--setting-sources project did not read CLAUDE.md")
	}
	if ls := x.Run("trust", "--list"); strings.Contains(ls.Stdout, x.Work) {
		t.Errorf("--setting-sources project recorded trust:\n%s", ls.Stdout)
	}
}
