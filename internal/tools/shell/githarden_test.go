package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Read-only commands run with git's fixed-name command keys turned off, so
// a repository config changed after the permission check still runs
// nothing; a command the user approved keeps them (their hooks run).
func TestReadOnlyGitCommandsRunHardened(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env, _ := newTestEnv(t)
	ws := env.WorkDir
	marker := filepath.Join(ws, "MARKER")
	evil := filepath.Join(ws, "evil.sh")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\nexit 0\n"), 0o755)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", ".")
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte("a\n"), 0o644)
	git("add", "f.txt")
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
	git("config", "core.fsmonitor", evil)
	git("config", "diff.external", evil)
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "hooks", "post-index-change"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte("a\nb\n"), 0o644)
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "user.name")
	t.Setenv("GIT_CONFIG_VALUE_0", "kept")
	bash := NewBash()
	res := run(t, context.Background(), bash, env, map[string]any{"command": "git status; git diff; git config --get user.name"})
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a read-only git command ran the repository's program:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "kept") {
		t.Errorf("the user's own GIT_CONFIG entries were lost:\n%s", res.Content)
	}
	run(t, context.Background(), bash, env, map[string]any{"command": "git status && touch approved"})
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: an approved command did not run the configured program; the test proves nothing")
	}
}
