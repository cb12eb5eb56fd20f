package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/gitrepo"
)

// gitIn runs git in dir outside any sandbox, hooks and the user's config
// out of the way.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A session rooted in a linked worktree (a `tandem --worktree` session, an
// isolated sub-agent) commits inside the sandbox as one in the main
// checkout does: the repository's common git folder is writable, and
// what in it runs programs later (hooks, config) is not.
func TestWorktreeSessionCommitsButCannotPlantHooks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	l := newLayout(t)
	repo := l.ws
	gitIn(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644)
	gitIn(t, repo, "add", "a.txt")
	gitIn(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
	wt := filepath.Join(repo, ".claude", "worktrees", "w1")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "worktree-w1", wt)
	common, _ := filepath.EvalSymlinks(filepath.Join(repo, ".git"))
	hook := filepath.Join(common, "hooks", "pre-commit")
	configBefore, _ := os.ReadFile(filepath.Join(common, "config"))

	// The session's roots are the worktree alone (internal/app's SandboxFor
	// builds the policy the same way).
	p, err := Build(Input{Roots: []string{wt}, Home: l.home, TempDir: l.tmp,
		Secrets: []string{filepath.Join(l.home, ".ssh")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.WriteRoots, common) {
		t.Errorf("the common git folder %s is not a write root: %v", common, p.WriteRoots)
	}
	s := testSandbox(t, p)
	// The file tools' check reads the same write roots as the kernel.
	if ev, ok := s.FileDenial(filepath.Join(common, "worktrees", "w1", "index"), true, false); !ok {
		t.Errorf("FileDenial refuses the worktree's index: %s", ev.Message)
	}
	if ev, ok := s.FileDenial(filepath.Join(repo, "a.txt"), true, false); ok {
		t.Errorf("FileDenial lets the main checkout be written from the worktree session")
	} else if !strings.Contains(ev.Message, "outside the writable folders") {
		t.Errorf("FileDenial: %s", ev.Message)
	}
	if !s.Capabilities().UserNS {
		t.Skip("read-only places need the mount namespace")
	}
	sh := func(script string) (string, int) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = wt
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if err := s.Confine(cmd); err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), cmd.ProcessState.ExitCode()
	}
	if out, code := sh("echo two > a.txt && git add a.txt && git commit -q -m two && git log --format=%s -1"); code != 0 || out != "two" {
		t.Fatalf("git add + commit in the worktree inside the sandbox: code %d, %q; want it to commit", code, out)
	}
	if got := gitIn(t, repo, "log", "--format=%s", "-1", "worktree-w1"); got != "two" {
		t.Errorf("branch worktree-w1 is at %q, want the sandboxed commit", got)
	}
	if out, code := sh("echo x > " + hook); code == 0 {
		t.Errorf("writing %s inside the sandbox succeeded (%q); want it refused", hook, out)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Error("a pre-commit hook was planted in the common git folder")
	}
	if out, code := sh("git config core.hooksPath /tmp/x"); code == 0 {
		t.Errorf("git config core.hooksPath inside the sandbox succeeded (%q); want it refused", out)
	}
	if out, code := sh("git config alias.st '!touch /tmp/pwned'"); code == 0 {
		t.Errorf("git config alias inside the sandbox succeeded (%q); want it refused", out)
	}
	// The worktree's own commondir names the folder whose config git
	// reads: pointing it elsewhere is refused too.
	if out, code := sh("echo /tmp > " + filepath.Join(common, "worktrees", "w1", "commondir")); code == 0 {
		t.Errorf("rewriting the worktree's commondir succeeded (%q); want it refused", out)
	}
	if after, _ := os.ReadFile(filepath.Join(common, "config")); string(after) != string(configBefore) {
		t.Errorf("the repository's config changed:\n%s", after)
	}
	if out, err := exec.Command("git", "-C", wt, "config", "--get-all", "core.hooksPath").CombinedOutput(); err == nil {
		t.Errorf("core.hooksPath is set: %s", out)
	}
}

// A .git file naming a folder that does not register the worktree back
// (a home folder, another repository) brings no write root: the links are
// files the repository controls.
func TestForgedGitFileBringsNoWriteRoot(t *testing.T) {
	l := newLayout(t)
	victim := filepath.Join(l.home, "victim")
	for _, d := range []string{"objects", "refs", "worktrees/x"} {
		os.MkdirAll(filepath.Join(victim, d), 0o755)
	}
	os.WriteFile(filepath.Join(victim, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(victim, "worktrees", "x", "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(victim, "worktrees", "x", "gitdir"), []byte("/elsewhere/.git\n"), 0o644)
	os.WriteFile(filepath.Join(l.ws, ".git"), []byte("gitdir: "+filepath.Join(victim, "worktrees", "x")+"\n"), 0o644)
	p, err := Build(Input{Roots: []string{l.ws}, Home: l.home, TempDir: l.tmp})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.WriteRoots {
		if strings.HasPrefix(r, victim) {
			t.Errorf("write root %s from a forged .git file", r)
		}
	}
	// The same folder registering the workspace back is a worktree.
	os.WriteFile(filepath.Join(victim, "worktrees", "x", "gitdir"), []byte(filepath.Join(l.ws, ".git")+"\n"), 0o644)
	if _, common, ok := gitrepo.LinkedWorktree(l.ws); !ok || common != victim {
		t.Errorf("LinkedWorktree = %s, %v; want %s once it registers the worktree", common, ok, victim)
	}
}
