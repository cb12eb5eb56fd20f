package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newRepo makes a git repository with one commit in a temporary folder.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", "a.txt")
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// state is what a leak would show: the worktrees and branches git knows.
func state(t *testing.T, repo string) string {
	return run(t, repo, "worktree", "list", "--porcelain") + "\n--\n" + run(t, repo, "branch", "--list")
}

func TestCreateUnchangedIsRemovedWithItsBranch(t *testing.T) {
	repo := newRepo(t)
	before := state(t, repo)
	ctx := context.Background()
	wt, err := Create(ctx, repo, "feature-auth")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(repo)
	if want := filepath.Join(real, ".claude", "worktrees", "feature-auth"); wt.Path != want {
		t.Fatalf("path %s, want %s", wt.Path, want)
	}
	if wt.Branch != "worktree-feature-auth" {
		t.Fatalf("branch %s", wt.Branch)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("checkout: %q %v", b, err)
	}
	list, err := List(ctx, repo)
	if err != nil || len(list) != 1 || list[0].Path != wt.Path || list[0].Branch != wt.Branch {
		t.Fatalf("List = %+v, %v", list, err)
	}
	removed, err := wt.Finish(ctx)
	if err != nil || !removed {
		t.Fatalf("Finish = %v, %v; want removed", removed, err)
	}
	if after := state(t, repo); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s", before, after)
	}
	if _, err := os.Lstat(filepath.Join(repo, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".claude left behind: %v", err)
	}
}

func TestChangedWorktreesAreKept(t *testing.T) {
	ctx := context.Background()
	for name, change := range map[string]func(t *testing.T, wt *Tree){
		"edit":      func(t *testing.T, wt *Tree) { write(t, filepath.Join(wt.Path, "a.txt"), "two\n") },
		"untracked": func(t *testing.T, wt *Tree) { write(t, filepath.Join(wt.Path, "new.txt"), "x") },
		"commit": func(t *testing.T, wt *Tree) {
			write(t, filepath.Join(wt.Path, "a.txt"), "two\n")
			run(t, wt.Path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
		},
		// A .git file naming another git folder: tandem does not run git
		// against what it names, and keeps the worktree.
		"dotgit": func(t *testing.T, wt *Tree) { write(t, filepath.Join(wt.Path, ".git"), "gitdir: /tmp/elsewhere\n") },
	} {
		t.Run(name, func(t *testing.T) {
			repo := newRepo(t)
			wt, err := Create(ctx, repo, "w1")
			if err != nil {
				t.Fatal(err)
			}
			change(t, wt)
			removed, err := wt.Finish(ctx)
			if err != nil || removed {
				t.Fatalf("Finish = %v, %v; want kept", removed, err)
			}
			if _, err := os.Stat(wt.Path); err != nil {
				t.Fatalf("kept worktree gone: %v", err)
			}
			if !strings.Contains(wt.KeptMessage(), wt.Path) || !strings.Contains(wt.KeptMessage(), "git merge worktree-w1") {
				t.Fatalf("message %q", wt.KeptMessage())
			}
		})
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckNameRefusesWhatCannotBeAFolderAndABranch(t *testing.T) {
	for _, bad := range []string{"", "a/b", "../x", "..", "a..b", "-x", ".hidden", "a b", "x.lock", "x.", "a\\b",
		"a:b", "a~b", "a^b", "a?b", "a*b", "a[b", "@{x}", strings.Repeat("a", MaxName+1), "é"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
	for _, good := range []string{"feature-auth", "bugfix-123", "a", "v1.2_x", "agent-0a1b2c3d"} {
		if err := CheckName(good); err != nil {
			t.Errorf("CheckName(%q): %v", good, err)
		}
	}
	// Refused where it enters: nothing is made.
	repo := newRepo(t)
	if _, err := Create(context.Background(), repo, "../../escape"); err == nil {
		t.Fatal("Create accepted ../../escape")
	}
	if _, err := os.Lstat(filepath.Join(repo, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused name made folders")
	}
}

func TestCreateRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("not a repository", func(t *testing.T) {
		_, err := Create(ctx, t.TempDir(), "x")
		if !errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), "git init") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("name in use", func(t *testing.T) {
		repo := newRepo(t)
		wt, err := Create(ctx, repo, "x")
		if err != nil {
			t.Fatal(err)
		}
		defer wt.Remove(ctx)
		if _, err := Create(ctx, repo, "x"); !errors.Is(err, ErrExists) {
			t.Fatalf("second Create: %v", err)
		}
	})
	t.Run("symbolic link on the way", func(t *testing.T) {
		// A repository holding .claude/worktrees as a link elsewhere
		// cannot send the worktree there.
		repo := newRepo(t)
		elsewhere := t.TempDir()
		if err := os.MkdirAll(filepath.Join(repo, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(repo, ".claude", "worktrees")); err != nil {
			t.Fatal(err)
		}
		_, err := Create(ctx, repo, "x")
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("err = %v", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Fatalf("wrote through the link: %v", ents)
		}
	})
	t.Run("config names a program", func(t *testing.T) {
		repo := newRepo(t)
		run(t, repo, "config", "filter.evil.smudge", "touch "+filepath.Join(repo, "pwned"))
		_, err := Create(ctx, repo, "x")
		if err == nil || !strings.Contains(err.Error(), "filter.evil.smudge") {
			t.Fatalf("err = %v", err)
		}
		if _, err := os.Lstat(filepath.Join(repo, ".claude")); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("a refused repository got folders")
		}
	})
	t.Run("hooks do not run", func(t *testing.T) {
		repo := newRepo(t)
		hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
		marker := filepath.Join(t.TempDir(), "ran")
		write(t, hook, "#!/bin/sh\ntouch "+marker+"\n")
		if err := os.Chmod(hook, 0o755); err != nil {
			t.Fatal(err)
		}
		wt, err := Create(ctx, repo, "x")
		if err != nil {
			t.Fatal(err)
		}
		defer wt.Remove(ctx)
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("post-checkout hook ran")
		}
	})
}

func TestSetCloseRemovesTheUnchangedAndKeepsTheChanged(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	before := state(t, repo)
	var s Set
	a, err := Create(ctx, repo, AgentName())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(ctx, repo, AgentName())
	if err != nil {
		t.Fatal(err)
	}
	s.Add(a)
	s.Add(b)
	write(t, filepath.Join(b.Path, "a.txt"), "changed\n")
	kept, err := s.Close(ctx)
	if err != nil || len(kept) != 1 || kept[0] != b {
		t.Fatalf("Close = %v, %v", kept, err)
	}
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if after := state(t, repo); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s", before, after)
	}
}
