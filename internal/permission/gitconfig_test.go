package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepoLayout builds a workspace holding a repository whose own config
// has key = value, and returns the command that runs `git <sub>` in it.
type gitRepoLayout struct {
	name  string
	build func(t *testing.T, ws string) (gitDir string, run func(sub string) string)
}

var gitLayouts = []gitRepoLayout{
	{"bare folder with core.worktree", func(t *testing.T, ws string) (string, func(string) string) {
		gitRun(t, ws, "init", "-q", "--bare", "evilbare")
		gd := filepath.Join(ws, "evilbare")
		gitRun(t, ws, "--git-dir="+gd, "config", "core.bare", "false")
		gitRun(t, ws, "--git-dir="+gd, "config", "core.worktree", "..")
		return gd, func(sub string) string { return "cd evilbare && git " + sub }
	}},
	{"gitfile pointing at it", func(t *testing.T, ws string) (string, func(string) string) {
		gitRun(t, ws, "init", "-q", "--bare", "evilbare")
		gd := filepath.Join(ws, "evilbare")
		gitRun(t, ws, "--git-dir="+gd, "config", "core.bare", "false")
		gitRun(t, ws, "--git-dir="+gd, "config", "core.worktree", "..")
		writeFile(t, mkdirAll(t, filepath.Join(ws, "sub"))+"/.git", "gitdir: ../evilbare\n")
		return gd, func(sub string) string { return "cd sub && git " + sub }
	}},
	{"the workspace's own repository", func(t *testing.T, ws string) (string, func(string) string) {
		gitRun(t, ws, "init", "-q", ".")
		return filepath.Join(ws, ".git"), func(sub string) string { return "git " + sub }
	}},
}

// Every git configuration key that names a program makes git commands in
// that repository ask (explore: deny) instead of running as read-only. The
// commands that do trigger the key are then run for real: the marker file
// proves the program runs when git is called there, and that tandem did not
// call it.
func TestGitRepositoryConfigCannotRunPrograms(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct {
		key, value string // value "EVIL" is replaced by the marker script
		sub        string // the read-only command that would run it ("" none)
		attrs      string // .gitattributes for driver keys
	}{
		{"core.fsmonitor", "EVIL", "status", ""},
		{"diff.external", "EVIL", "diff", ""},
		{"diff.evil.textconv", "EVIL", "diff", "*.txt diff=evil\n"},
		{"filter.evil.clean", "EVIL", "diff", "*.txt filter=evil\n"},
		{"hook:post-index-change", "EVIL", "status", ""},
		{"core.hooksPath", "HOOKS", "status", ""},
		{"diff.evil.command", "EVIL", "diff", "*.txt diff=evil\n"},
		{"filter.evil.smudge", "EVIL", "", ""},
		{"filter.evil.process", "EVIL", "", ""},
		{"merge.evil.driver", "EVIL", "", ""},
		{"core.pager", "EVIL", "", ""},
		{"pager.log", "EVIL", "", ""},
		{"core.editor", "EVIL", "", ""},
		{"sequence.editor", "EVIL", "", ""},
		{"core.sshCommand", "EVIL", "", ""},
		{"core.gitProxy", "EVIL", "", ""},
		{"core.askPass", "EVIL", "", ""},
		{"core.alternateRefsCommand", "EVIL", "", ""},
		{"credential.helper", "EVIL", "", ""},
		{"credential.https://example.com.helper", "EVIL", "", ""},
		{"gpg.program", "EVIL", "", ""},
		{"gpg.ssh.program", "EVIL", "", ""},
		{"alias.st", "!EVIL", "", ""},
		{"uploadpack.packObjectsHook", "EVIL", "", ""},
		{"protocol.ext.allow", "always", "", ""},
		{"remote.origin.uploadpack", "EVIL", "", ""},
		{"difftool.evil.cmd", "EVIL", "", ""},
		{"submodule.x.update", "!EVIL", "", ""},
		{"include.path", "INCLUDE", "status", ""},
	}
	for i, layout := range gitLayouts {
		for _, c := range cases {
			if i > 0 && c.sub == "" {
				continue // keys no read-only command triggers: one layout is enough
			}
			t.Run(layout.name+"/"+c.key, func(t *testing.T) {
				ws := t.TempDir()
				ws, _ = filepath.EvalSymlinks(ws)
				gd, command := layout.build(t, ws)
				marker := filepath.Join(ws, "MARKER")
				evil := filepath.Join(ws, "evil.sh")
				writeFile(t, evil, "#!/bin/sh\ntouch "+marker+"\ncat \"$@\" 2>/dev/null\nexit 0\n")
				os.Chmod(evil, 0o755)
				writeFile(t, filepath.Join(ws, "f.txt"), "one\n")
				if c.attrs != "" {
					writeFile(t, filepath.Join(ws, ".gitattributes"), c.attrs)
				}
				// g.txt keeps its content but gets a new mtime below, so every
				// status must refresh and rewrite the index (which is what runs
				// index hooks); f.txt's size change alone needs no rewrite, and
				// whether racy-git checks write one depends on the clock.
				writeFile(t, filepath.Join(ws, "g.txt"), "same\n")
				gitRun(t, ws, "--git-dir="+gd, "--work-tree="+ws, "add", "f.txt", "g.txt")
				gitRun(t, ws, "--git-dir="+gd, "--work-tree="+ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
				os.Remove(marker) // the clean filter ran for add
				value := strings.ReplaceAll(c.value, "EVIL", evil)
				switch {
				case c.key == "hook:post-index-change":
					hooks := mkdirAll(t, filepath.Join(gd, "hooks"))
					writeFile(t, filepath.Join(hooks, "post-index-change"), "#!/bin/sh\ntouch "+marker+"\n")
					os.Chmod(filepath.Join(hooks, "post-index-change"), 0o755)
				case c.key == "core.hooksPath":
					hooks := mkdirAll(t, filepath.Join(ws, "myhooks"))
					writeFile(t, filepath.Join(hooks, "post-index-change"), "#!/bin/sh\ntouch "+marker+"\n")
					os.Chmod(filepath.Join(hooks, "post-index-change"), 0o755)
					gitRun(t, ws, "--git-dir="+gd, "config", c.key, hooks)
				case c.key == "include.path":
					inc := filepath.Join(gd, "extra.cfg")
					writeFile(t, inc, "[core]\n\tfsmonitor = "+evil+"\n")
					gitRun(t, ws, "--git-dir="+gd, "config", c.key, inc)
				default:
					gitRun(t, ws, "--git-dir="+gd, "config", c.key, value)
				}
				writeFile(t, filepath.Join(ws, "f.txt"), "one\ntwo\n")
				past := time.Now().Add(-time.Hour)
				if err := os.Chtimes(filepath.Join(ws, "g.txt"), past, past); err != nil {
					t.Fatal(err)
				}
				sub := c.sub
				if sub == "" {
					sub = "status"
				}
				cmd := command(sub)
				for _, mode := range []Mode{Explore, Normal} {
					e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: mode, WorkDir: ws})
					d := check(t, e, "Bash", map[string]string{"command": cmd})
					if d.Behavior == Allow {
						runShell(t, ws, cmd)
						t.Fatalf("%s mode allowed %q (marker written: %v)", mode, cmd, exists(marker))
					}
					if !strings.Contains(d.Message, "runs programs") {
						t.Errorf("%s: the denial does not say why: %s", mode, d.Message)
					}
				}
				if c.sub != "" {
					// The control: git really runs the program here.
					runShell(t, ws, cmd)
					if !exists(marker) {
						t.Errorf("control: %q did not run the configured program; the case proves nothing", cmd)
					}
				}
			})
		}
	}
}

// A clean repository stays read-only, in a sub-folder or after cd; a cd to
// a folder computed at run time makes git ask.
func TestGitCleanRepositoryStaysReadOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	gitRun(t, ws, "init", "-q", ".")
	gitRun(t, ws, "config", "core.fsmonitor", "false")
	gitRun(t, ws, "config", "alias.lg", "log --oneline")
	mkdirAll(t, filepath.Join(ws, "pkg"))
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Explore, WorkDir: ws})
	for _, cmd := range []string{"git status", "cd pkg && git status", "git log -n 1; cd .. ; git diff", "cd " + ws + " && git diff"} {
		if d := check(t, e, "Bash", map[string]string{"command": cmd}); d.Behavior != Allow {
			t.Errorf("%q: %+v", cmd, d)
		}
	}
	for _, cmd := range []string{"cd $X && git status", "cd - && git status", "cd ev* && git status",
		"for d in a b; do cd pkg; done; git status", "f() { cd pkg; }; f; git status", "bash -c 'cd pkg'; git status"} {
		if d := check(t, e, "Bash", map[string]string{"command": cmd}); d.Behavior == Allow {
			t.Errorf("%q allowed", cmd)
		}
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func runShell(t *testing.T, dir, command string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat")
	_ = cmd.Run()
}

func mkdirAll(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// git status runs git again in every populated submodule: a submodule whose
// own config names a program makes the parent's git status ask.
func TestGitSubmoduleConfigIsVetted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	marker := filepath.Join(ws, "MARKER")
	evil := filepath.Join(ws, "evil.sh")
	writeFile(t, evil, "#!/bin/sh\ntouch "+marker+"\nexit 0\n")
	os.Chmod(evil, 0o755)
	sub := mkdirAll(t, filepath.Join(ws, "lib"))
	gitRun(t, sub, "init", "-q", ".")
	writeFile(t, filepath.Join(sub, "a.txt"), "a\n")
	gitRun(t, sub, "add", "a.txt")
	gitRun(t, sub, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sub")
	gitRun(t, ws, "init", "-q", ".")
	gitRun(t, ws, "add", "lib") // a gitlink
	gitRun(t, ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "parent")
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Explore, WorkDir: ws})
	if d := check(t, e, "Bash", map[string]string{"command": "git status"}); d.Behavior != Allow {
		t.Fatalf("clean submodule: %+v", d)
	}
	gitRun(t, sub, "config", "core.fsmonitor", evil)
	d := check(t, e, "Bash", map[string]string{"command": "git status"})
	if d.Behavior == Allow || !strings.Contains(d.Message, "submodule "+sub) {
		t.Errorf("hostile submodule: %+v", d)
	}
	runShell(t, ws, "git status")
	if !exists(marker) {
		t.Errorf("control: git status did not run the submodule's fsmonitor; the case proves nothing")
	}
}
