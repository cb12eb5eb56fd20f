package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A sandboxed Bash command creates .git/commondir (an ordinary checkout
// has none, so no read-only mount holds its place) naming a git folder it
// built, whose config and hooks run a program; a background job creates
// .git/config.worktree. Both are gone when the session ends, the first
// with a sandbox_denial naming it; git run outside afterwards, hooks on,
// runs nothing planted; a commit inside the sandbox still works.
func TestE2ESandboxedBashCannotPlantGitPrograms(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// Outside the workspace: what git outside would run writes it.
	mark := filepath.Join(t.TempDir(), "PLANTED-RAN")
	plant := `cd "$(dirname "$0")" && cp -r .git evil && printf '#!/bin/sh\ntouch ` + mark + `\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && ` +
		`printf '[core]\n\tfsmonitor = touch ` + mark + `; echo\n' >> evil/config && echo "$PWD/evil" > .git/commondir; echo planted`
	// The commands run scripts, as a command that means harm would: the
	// permission engine asks before a command naming .git, but cannot see
	// into a script; the kernel and the guard are what stop it.
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("plant", "Bash", map[string]any{"command": "sh plant.sh"})),
		scripted.ToolStep(scripted.CallID("job", "Bash", map[string]any{"command": "sh job.sh", "run_in_background": true})),
		scripted.ToolStep(scripted.CallID("commit", "Bash", map[string]any{"command": "echo two > a.txt && git add a.txt && " +
			"GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t git commit -q -m sandboxed"})),
		scripted.TextStep("done"),
	}})
	gitRepoIn(t, x)
	gitIn(t, x.Work, "config", "extensions.worktreeConfig", "true")
	os.WriteFile(filepath.Join(x.Work, "plant.sh"), []byte(plant+"\n"), 0o644)
	os.WriteFile(filepath.Join(x.Work, "job.sh"), []byte("printf '[core]\\n\\tfsmonitor = touch "+mark+"; echo\\n' > .git/config.worktree\n"), 0o644)
	gitIn(t, x.Work, "add", "plant.sh", "job.sh")
	gitIn(t, x.Work, "commit", "-q", "-m", "scripts")
	r := x.RunStream("try", "--permission-mode", "trust", "--sandbox")
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	mustSucceed(t, r)
	commondir := filepath.Join(x.Work, ".git", "commondir")
	for _, p := range []string{commondir, filepath.Join(x.Work, ".git", "config.worktree")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s, planted by a sandboxed command, is still there", p)
		}
	}
	named := false
	for _, e := range eventsOf(r, event.SandboxDenial) {
		if e.Meta["path"] == commondir && e.Meta["rule"] == sandbox.RuleGitProgram {
			named = true
		}
	}
	if !named {
		var out string
		for _, e := range eventsOf(r, event.ToolResult) {
			out += e.Output + "\n"
		}
		t.Errorf("no sandbox_denial names %s: %+v; the commands said:\n%s", commondir, eventsOf(r, event.SandboxDenial), out)
	}
	if got := gitIn(t, x.Work, "log", "--format=%s", "-1"); got != "sandboxed" {
		t.Errorf("the commit inside the sandbox: log says %q", got)
	}
	gitIn(t, x.Work, "status")
	gitIn(t, x.Work, "commit", "-q", "--allow-empty", "-m", "outside")
	if _, err := os.Stat(mark); err == nil {
		t.Error("git outside the sandbox ran a program a sandboxed command planted")
	}
}
