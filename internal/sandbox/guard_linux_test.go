package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/gitrepo"
)

// guardRig is a repository as the workspace of a sandbox built the way
// internal/app builds a session's (its git program files read-only), with
// the guard's events collected.
type guardRig struct {
	t    *testing.T
	l    layout
	s    *Sandbox
	mark string // a file a planted program would create

	mu     sync.Mutex
	events []event.Event
}

func newGuardRig(t *testing.T, prepare func(repo string)) *guardRig {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	l := newLayout(t)
	gitIn(t, l.ws, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(l.ws, "a.txt"), []byte("one\n"), 0o644)
	gitIn(t, l.ws, "add", "a.txt")
	gitIn(t, l.ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
	if prepare != nil {
		prepare(l.ws)
	}
	p, err := Build(Input{Roots: []string{l.ws}, Home: l.home, TempDir: l.tmp,
		ReadOnly: gitrepo.ProgramFiles(filepath.Join(l.ws, ".git")), Secrets: []string{filepath.Join(l.home, ".ssh")}})
	if err != nil {
		t.Fatal(err)
	}
	r := &guardRig{t: t, l: l, s: testSandbox(t, p), mark: filepath.Join(l.home, "PLANTED-RAN")}
	r.s.OnDenial(func(ev event.Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	})
	if err := r.s.Open(); err != nil {
		t.Fatal(err)
	}
	return r
}

// start starts script in the workspace inside the sandbox (Start: the
// session's sandbox process, as Bash runs).
func (r *guardRig) start(script string) *Process {
	r.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = r.l.ws
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "MARK="+r.mark,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	p, err := r.s.Start(cmd)
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

func (r *guardRig) run(script string) {
	r.t.Helper()
	if _, err := r.start(script).Wait(); err != nil {
		r.t.Fatal(err)
	}
}

// denied reports whether a sandbox_denial named path.
func (r *guardRig) denied(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.events {
		if ev.Type == event.SandboxDenial && ev.Meta["path"] == path && ev.Meta["rule"] == RuleGitProgram {
			return true
		}
	}
	return false
}

func (r *guardRig) eventCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// gitOutside runs git in dir as the user would after the session: outside
// the sandbox, hooks and the repository's config on; it must not run what
// a command planted (which would create the mark).
func (r *guardRig) gitOutside(dir string, args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(r.mark); err == nil {
		r.t.Errorf("git %v outside the sandbox ran a program a sandboxed command planted\n%s", args, out)
		os.Remove(r.mark)
	}
}

func (r *guardRig) gone(p string) {
	r.t.Helper()
	if _, err := os.Lstat(p); err == nil {
		r.t.Errorf("%s, planted by a sandboxed command, is still there", p)
	}
	if !r.denied(p) {
		r.t.Errorf("no sandbox_denial names %s: %+v", p, r.events)
	}
}

// plantScript builds, inside the workspace, a git folder whose config
// runs a program (core.fsmonitor: `git status` runs it) and whose hooks
// do, from the repository's own.
const plantScript = `cp -r .git evil && rm -rf evil/hooks && mkdir evil/hooks &&
printf '#!/bin/sh\ntouch %s\n' "$MARK" > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit &&
printf '[core]\n\tfsmonitor = touch %s; echo\n' "$MARK" >> evil/config && `

// A command in an ordinary checkout creates .git/commondir (git has none
// there, so no read-only mount holds its place) naming a git folder it
// built: git outside would read that folder's config and hooks. The guard
// removes it and says so; git outside runs nothing planted; a commit made
// inside the sandbox touches nothing the guard removes.
func TestPlantedCommondirIsRemoved(t *testing.T) {
	r := newGuardRig(t, nil)
	r.run("echo two > a.txt && git add a.txt && git commit -q -m two")
	if got := gitIn(t, r.l.ws, "log", "--format=%s", "-1"); got != "two" {
		t.Fatalf("a commit inside the sandbox: log says %q", got)
	}
	if n := r.eventCount(); n != 0 {
		t.Errorf("a plain commit made %d guard events: %+v", n, r.events)
	}
	commondir := filepath.Join(r.l.ws, ".git", "commondir")
	r.run(plantScript + `echo "$PWD/evil" > .git/commondir`)
	r.gone(commondir)
	r.gitOutside(r.l.ws, "status")
	r.gitOutside(r.l.ws, "commit", "-q", "--allow-empty", "-m", "three")
}

// A repository with no hooks folder at all: the command creates one with
// a hook in it.
func TestPlantedHooksFolderIsRemoved(t *testing.T) {
	r := newGuardRig(t, func(repo string) { os.RemoveAll(filepath.Join(repo, ".git", "hooks")) })
	hooks := filepath.Join(r.l.ws, ".git", "hooks")
	r.run(`mkdir -p .git/hooks; printf '#!/bin/sh\ntouch %s\n' "$MARK" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`)
	r.gone(hooks)
	r.gitOutside(r.l.ws, "commit", "-q", "--allow-empty", "-m", "x")
}

// The command renames .git away (its read-only mounts go with it) and
// builds a new one in its place, config and all.
func TestReplacedGitFolderLosesItsPrograms(t *testing.T) {
	r := newGuardRig(t, nil)
	r.run(`mv .git .gitold && mkdir .git && cp -r .gitold/objects .gitold/refs .gitold/HEAD .gitold/index .git/ &&
printf '[core]\n\tfsmonitor = touch %s; echo\n' "$MARK" > .git/config &&
mkdir .git/hooks && printf '#!/bin/sh\ntouch %s\n' "$MARK" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`)
	r.gone(filepath.Join(r.l.ws, ".git", "config"))
	r.gone(filepath.Join(r.l.ws, ".git", "hooks"))
	r.gitOutside(r.l.ws, "status")
	r.gitOutside(r.l.ws, "commit", "-q", "--allow-empty", "-m", "x")
}

// A submodule's git folder (.git/modules/NAME) holds hooks and a config
// git runs when it works in the submodule: the existing ones are
// read-only, a missing commondir is guarded as the top folder's is.
func TestSubmoduleProgramFilesAreProtected(t *testing.T) {
	var lib string
	r := newGuardRig(t, func(repo string) {
		lib = filepath.Join(filepath.Dir(repo), "lib")
		gitIn(t, filepath.Dir(repo), "init", "-q", "-b", "main", lib)
		gitIn(t, lib, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "lib")
		gitIn(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	})
	mod := filepath.Join(r.l.ws, ".git", "modules", "lib")
	if !r.s.Capabilities().UserNS {
		t.Skip("read-only places need the mount namespace")
	}
	hook := filepath.Join(mod, "hooks", "post-checkout")
	r.run(`printf '#!/bin/sh\ntouch %s\n' "$MARK" > ` + hook + `; chmod +x ` + hook + `;
printf '[core]\n\tfsmonitor = touch %s; echo\n' "$MARK" >> ` + filepath.Join(mod, "config"))
	if _, err := os.Stat(hook); err == nil {
		t.Errorf("a hook was planted in the submodule's git folder")
	}
	out, _ := runStarted(t, r.s, "write", hook)
	if evs := r.s.DenialEvents(out, r.l.ws); len(evs) != 1 || evs[0].Meta["path"] != hook || evs[0].Meta["rule"] != RuleReadOnly {
		t.Errorf("the refusal (%q) is not one sandbox_denial naming %s: %+v", out, hook, evs)
	}
	if b, _ := os.ReadFile(filepath.Join(mod, "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the submodule's config was changed:\n%s", b)
	}
	r.run(plantScript + `echo "$PWD/evil" > ` + filepath.Join(mod, "commondir"))
	r.gone(filepath.Join(mod, "commondir"))
	r.gitOutside(r.l.ws, "status")
	r.gitOutside(filepath.Join(r.l.ws, "lib"), "checkout", "-q", "-b", "other")
}

// A background command (run_in_background) plants while the session goes
// on: the watcher removes it before the command ends.
func TestBackgroundPlantIsCaughtByWatcher(t *testing.T) {
	r := newGuardRig(t, nil)
	commondir := filepath.Join(r.l.ws, ".git", "commondir")
	p := r.start(`while [ ! -f go ]; do sleep 0.05; done; ` + plantScript + `echo "$PWD/evil" > .git/commondir; touch planted; sleep 600`)
	t.Cleanup(func() { syscall.Kill(-p.Pid, syscall.SIGKILL); p.Wait() })
	os.WriteFile(filepath.Join(r.l.ws, "go"), nil, 0o644)
	deadline := time.Now().Add(20 * time.Second)
	for !r.denied(commondir) {
		if time.Now().After(deadline) {
			_, err := os.Lstat(commondir)
			t.Fatalf("the watcher did not remove %s while the command ran (there: %v)", commondir, err == nil)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-p.Done():
		t.Fatal("the command ended: the removal was the after-command check, not the watcher")
	default:
	}
	if _, err := os.Lstat(commondir); err == nil {
		t.Errorf("%s is still there", commondir)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(r.l.ws, "planted")); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the background command did not get past its plant")
		}
	}
	r.gitOutside(r.l.ws, "status")
}

// The guard takes stock when the session's sandbox starts: a file that
// was there then is not its to remove, and stopping the sandbox checks a
// last time.
func TestGuardKeepsWhatWasThere(t *testing.T) {
	r := newGuardRig(t, func(repo string) {
		os.WriteFile(filepath.Join(repo, ".git", "config.worktree"), []byte("[x]\n\ty = 1\n"), 0o644)
	})
	r.run("git status >/dev/null; git gc -q")
	if _, err := os.Stat(filepath.Join(r.l.ws, ".git", "config.worktree")); err != nil {
		t.Errorf("config.worktree, there before the session, was removed")
	}
	if n := r.eventCount(); n != 0 {
		t.Errorf("%d events for ordinary git work: %+v", n, r.events)
	}
	// Planted through the launcher (Confine: hooks, MCP servers), caught
	// by the watcher or the last check as the sandbox stops.
	cmd := exec.Command("sh", "-c", "echo /elsewhere > .git/commondir")
	cmd.Dir = r.l.ws
	if err := r.s.Confine(cmd); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r.s.Close()
	r.gone(filepath.Join(r.l.ws, ".git", "commondir"))
}

// `git config` run outside while the session goes on writes .git/config
// anew and renames it over the old one, and the kernel drops the
// read-only mount over the old one in the session's sandbox process: the
// next command must find it read-only again.
func TestConfigRewrittenOutsideStaysReadOnly(t *testing.T) {
	r := newGuardRig(t, nil)
	if !r.s.Capabilities().UserNS {
		t.Skip("read-only places need the mount namespace")
	}
	config := filepath.Join(r.l.ws, ".git", "config")
	r.run("git status >/dev/null")
	gitIn(t, r.l.ws, "config", "user.name", "outside")
	r.run(`printf '[core]\n\tfsmonitor = touch %s; echo\n' "$MARK" >> .git/config`)
	if b, _ := os.ReadFile(config); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("a sandboxed command wrote .git/config after it was rewritten outside:\n%s", b)
	}
	r.gitOutside(r.l.ws, "status")
}
