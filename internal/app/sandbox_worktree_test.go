package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A worktree's .git file stays read-only in the sandbox (a command could
// otherwise point it at a git folder whose configuration runs a program
// the next time git runs there); a repository's .git folder does not (git
// writes it), only its hooks and config.
func TestSandboxKeepsAWorktreesGitFileReadOnly(t *testing.T) {
	wt, repo := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ro := sandboxReadOnly([]string{wt, repo})
	if !slices.Contains(ro, filepath.Join(wt, ".git")) {
		t.Errorf("worktree .git file not read-only: %v", ro)
	}
	if slices.Contains(ro, filepath.Join(repo, ".git")) {
		t.Errorf("a repository's .git folder made read-only: %v", ro)
	}
}
