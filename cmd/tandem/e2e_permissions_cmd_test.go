package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// `tandem permissions` lists a folder's rules with their files and says
// how a call would be judged, by the engine a session there would use.
func TestE2EPermissionsCommand(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	x.WriteFile(".claude/settings.json", `{"permissions": {"deny": ["Bash(git push:*)"], "ask": ["Edit(/docs/**)"]}}`)
	r := x.Run("permissions")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"Mode: normal.", "deny:\n  Bash(git push:*)  · ", ".claude/settings.json", "ask:\n  Edit(/docs/**)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.Stdout)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why", "git", "push", "origin", "main"}, "git push origin main → deny (Bash(git push:*))"},
		{[]string{"why", "ls -la"}, "ls -la → allow (read-only)"},
		{[]string{"why", "rm -rf build"}, "rm -rf build → ask (mode:normal): `rm -rf build`: rm"},
		{[]string{"why", "rm -rf build", "--permission-mode", "explore"}, "rm -rf build → deny (mode:explore)"},
		{[]string{"why", "Edit(docs/guide.md)"}, "Edit(docs/guide.md) → ask (Edit(/docs/**))"},
		{[]string{"why", "npm install", "--allowedTools", "Bash(npm install:*)"}, "npm install → allow (Bash(npm install:*))"},
	} {
		r := x.Run(append([]string{"permissions"}, c.args...)...)
		if r.Code != 0 || !strings.Contains(r.Stdout, c.want) {
			t.Errorf("%v: exit %d\n%s%s", c.args, r.Code, r.Stdout, r.Stderr)
		}
	}
	if r := x.Run("permissions", "explain", "ls"); r.Code == 0 || !strings.Contains(r.Stderr, "use `tandem permissions` or `tandem permissions why COMMAND`") {
		t.Errorf("bad argument: exit %d %s", r.Code, r.Stderr)
	}
}
