package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A session rooted in a linked worktree whose repository's git folder
// has no ".git" in its path (git init --separate-git-dir, a bare
// repository): what the OS sandbox keeps read-only there (hooks, config)
// is protected for file tools and commands too, even against a rule that
// allows writing that folder, as the kernel refuses it.
func TestLinkedWorktreeGitProgramsAreProtected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	repo, store, wt := filepath.Join(base, "repo"), filepath.Join(base, "store"), filepath.Join(base, "wt")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(base, "init", "-q", "--separate-git-dir", store, repo)
	git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
	git(repo, "worktree", "add", "-q", "-b", "w", wt)

	a := &recordingAsker{}
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Trust, WorkDir: wt, HomeDir: t.TempDir(), Asker: a,
		UserRules: mustRules(t, ActionAllow, "Edit(/"+filepath.ToSlash(store)+"/**)")})
	write := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	if got, d := verdictOf(t, e, a, "Write", write(filepath.Join(store, "objects", "x"))); got != "A" {
		t.Errorf("writing the git folder's objects with a rule allowing it: %s (%q)", got, d.Message)
	}
	for _, p := range []string{filepath.Join(store, "hooks", "pre-commit"), filepath.Join(store, "config"), filepath.Join(store, "worktrees", "wt", "commondir")} {
		if got, d := verdictOf(t, e, a, "Write", write(p)); got != "Q" {
			t.Errorf("Write %s: %s (%q); want asked", p, got, d.Message)
		}
		if got, _ := verdictOf(t, e, a, "Bash", map[string]any{"command": "echo x > " + p}); got != "Q" {
			t.Errorf("echo x > %s: %s; want asked", p, got)
		}
	}
	if len(a.asked) == 0 || !strings.Contains(a.asked[len(a.asked)-1].Reason, "git") {
		t.Errorf("the question does not say why: %+v", a.asked)
	}
	// The view a sub-agent isolated there is judged by says the same.
	r := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Trust, WorkDir: repo, HomeDir: t.TempDir(), Asker: a}).Rooted(wt).(*Engine)
	if got, _ := verdictOf(t, r, a, "Write", write(filepath.Join(store, "hooks", "pre-commit"))); got != "Q" {
		t.Errorf("Rooted view: %s; want asked", got)
	}
}

// In an ordinary checkout, .git/commondir does not exist (only a linked
// worktree's git folder has one), and config.worktree often does not: a
// file tool writing either, or a submodule's hooks and config, asks in
// every mode, even under a rule allowing writes to the whole workspace,
// since git would follow them to programs it runs outside the sandbox.
func TestWriteToMissingGitProgramFileAsks(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.MkdirAll(filepath.Join(ws, ".git", "modules", "lib", "hooks"), 0o755)
	a := &recordingAsker{}
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Trust, WorkDir: ws, HomeDir: t.TempDir(), Asker: a,
		UserRules: mustRules(t, ActionAllow, "Edit(/"+filepath.ToSlash(ws)+"/**)")})
	write := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "/elsewhere\n"} }
	if got, d := verdictOf(t, e, a, "Write", write(filepath.Join(ws, "notes.txt"))); got != "A" {
		t.Errorf("Write notes.txt under the allowing rule: %s (%q)", got, d.Message)
	}
	for _, rel := range []string{".git/commondir", ".git/config.worktree", ".git/hooks/pre-commit",
		".git/modules/lib/hooks/post-checkout", ".git/modules/lib/commondir", ".git/modules/lib/config"} {
		p := filepath.Join(ws, rel)
		if _, err := os.Stat(p); err == nil && rel == ".git/commondir" {
			t.Fatalf("%s exists", p)
		}
		if got, d := verdictOf(t, e, a, "Write", write(p)); got != "Q" {
			t.Errorf("Write %s: %s (%q); want asked", rel, got, d.Message)
		}
	}
	for _, p := range ProgramPaths(ws) {
		if filepath.Base(p) == "commondir" && filepath.Dir(p) == filepath.Join(ws, ".git") {
			return
		}
	}
	t.Errorf("ProgramPaths(%s) lacks .git/commondir", ws)
}
