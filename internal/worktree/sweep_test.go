package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// deadPID is the pid of a process that ran and is gone.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

// setOwner rewrites wt's marker as change says: what a tandem killed
// before Finish leaves, or another process's worktree.
func setOwner(t *testing.T, wt *Tree, change func(o *owner)) {
	t.Helper()
	p := filepath.Join(wt.gitDir, ownerFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("the worktree has no owner marker: %v", err)
	}
	var o owner
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	change(&o)
	b, _ = json.Marshal(o)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func orphan(t *testing.T, wt *Tree) {
	pid := deadPID(t)
	setOwner(t, wt, func(o *owner) { o.PID = pid })
}

func TestSweepRemovesAnUnchangedWorktreeWhoseOwnerIsGone(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	before := state(t, repo)
	wt, err := Create(ctx, repo, AgentName())
	if err != nil {
		t.Fatal(err)
	}
	// Hooks stay off for the sweep's git runs as for every other (branch
	// -D would run reference-transaction).
	marker := filepath.Join(t.TempDir(), "ran")
	for _, h := range []string{"reference-transaction", "post-checkout"} {
		hook := filepath.Join(repo, ".git", "hooks", h)
		write(t, hook, "#!/bin/sh\ntouch "+marker+"\n")
		os.Chmod(hook, 0o755)
	}
	orphan(t, wt)
	sw, err := Sweep(ctx, repo)
	if err != nil || len(sw.Removed) != 1 || len(sw.Kept) != 0 || sw.Removed[0].Path != wt.Path {
		t.Fatalf("Sweep = %+v, %v; want %s removed", sw, err, wt.Path)
	}
	if after := state(t, repo); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s", before, after)
	}
	if _, err := os.Lstat(filepath.Join(repo, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".claude left behind: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a git hook ran during the sweep")
	}
}

func TestSweepKeepsWhatItMustNotTouch(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	// Owned by this process, alive.
	live, err := Create(ctx, repo, "live")
	if err != nil {
		t.Fatal(err)
	}
	// Owned by another live process.
	sleeper := exec.Command("sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	other, err := Create(ctx, repo, "other")
	if err != nil {
		t.Fatal(err)
	}
	start, _, err := processStart(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	setOwner(t, other, func(o *owner) { o.PID, o.Start = sleeper.Process.Pid, start })
	// Recorded on another machine: its pids mean nothing here.
	remote, err := Create(ctx, repo, "remote")
	if err != nil {
		t.Fatal(err)
	}
	pid := deadPID(t)
	setOwner(t, remote, func(o *owner) { o.PID, o.Host = pid, "elsewhere.example" })
	// Made by hand: no marker.
	hand := filepath.Join(repo, ".claude", "worktrees", "hand")
	run(t, repo, "worktree", "add", "-q", "-b", "worktree-hand", hand)
	before := state(t, repo)
	sw, err := Sweep(ctx, repo)
	if err != nil || len(sw.Removed)+len(sw.Kept) != 0 {
		t.Fatalf("Sweep = %+v, %v; want nothing touched", sw, err)
	}
	if after := state(t, repo); after != before {
		t.Fatalf("Sweep changed the repository:\nbefore %s\nafter %s", before, after)
	}
	for _, wt := range []*Tree{live, other, remote} {
		if _, err := os.Stat(filepath.Join(wt.gitDir, ownerFile)); err != nil {
			t.Errorf("%s lost its marker: %v", wt.Name, err)
		}
	}
}

// A pid reused by a later process is not the owner: the start time says so.
func TestSweepTellsAReusedPID(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	wt, err := Create(ctx, repo, "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := processStart(os.Getpid()); err != nil {
		t.Skipf("no process start times here: %v", err)
	}
	// This process's pid, with another start: the owner was an earlier
	// process that had the same pid.
	setOwner(t, wt, func(o *owner) { o.Start += "0" })
	sw, err := Sweep(ctx, repo)
	if err != nil || len(sw.Removed) != 1 {
		t.Fatalf("Sweep = %+v, %v; want the worktree removed", sw, err)
	}
}

func TestSweepKeepsAndReportsAChangedWorktreeOnce(t *testing.T) {
	ctx := context.Background()
	for name, change := range map[string]func(t *testing.T, wt *Tree){
		"edit":      func(t *testing.T, wt *Tree) { write(t, filepath.Join(wt.Path, "a.txt"), "two\n") },
		"untracked": func(t *testing.T, wt *Tree) { write(t, filepath.Join(wt.Path, "new.txt"), "x") },
		"commit": func(t *testing.T, wt *Tree) {
			write(t, filepath.Join(wt.Path, "a.txt"), "two\n")
			run(t, wt.Path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
		},
		"detached, branch moved": func(t *testing.T, wt *Tree) {
			write(t, filepath.Join(wt.Path, "a.txt"), "two\n")
			run(t, wt.Path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
			run(t, wt.Path, "checkout", "-q", "--detach", wt.Base)
		},
	} {
		t.Run(name, func(t *testing.T) {
			repo := newRepo(t)
			wt, err := Create(ctx, repo, "w1")
			if err != nil {
				t.Fatal(err)
			}
			change(t, wt)
			orphan(t, wt)
			sw, err := Sweep(ctx, repo)
			if err != nil || len(sw.Kept) != 1 || len(sw.Removed) != 0 {
				t.Fatalf("Sweep = %+v, %v; want it kept", sw, err)
			}
			k := sw.Kept[0]
			if k.Path != wt.Path || k.Branch != "worktree-w1" || !strings.Contains(k.KeptMessage(), wt.Path) || !strings.Contains(k.KeptMessage(), "worktree-w1") {
				t.Fatalf("kept %+v: %s", k, k.KeptMessage())
			}
			if _, err := os.Stat(filepath.Join(wt.Path, ".git")); err != nil {
				t.Fatalf("the kept worktree is gone: %v", err)
			}
			if sw, err := Sweep(ctx, repo); err != nil || len(sw.Kept)+len(sw.Removed) != 0 {
				t.Fatalf("second Sweep = %+v, %v; want nothing (reported once)", sw, err)
			}
		})
	}
}

// A session opening inside a worktree a stopped tandem left takes it over
// rather than removing it from under itself.
func TestSweepFromInsideTakesTheWorktreeOver(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	wt, err := Create(ctx, repo, "x")
	if err != nil {
		t.Fatal(err)
	}
	orphan(t, wt)
	if sw, err := Sweep(ctx, wt.Path); err != nil || len(sw.Removed)+len(sw.Kept) != 0 {
		t.Fatalf("Sweep from inside = %+v, %v; want nothing removed", sw, err)
	}
	o, ok := readOwner(wt.gitDir)
	if !ok || o.PID != os.Getpid() {
		t.Fatalf("owner %+v, %v; want this process", o, ok)
	}
	if sw, err := Sweep(ctx, repo); err != nil || len(sw.Removed) != 0 {
		t.Fatalf("Sweep from the main checkout = %+v, %v; want the taken-over worktree left", sw, err)
	}
}

// A finished worktree that was kept is the user's: no marker, no sweep.
func TestFinishHandsAKeptWorktreeOver(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	wt, err := Create(ctx, repo, "x")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path, "a.txt"), "two\n")
	if removed, err := wt.Finish(ctx); removed || err != nil {
		t.Fatalf("Finish = %v, %v", removed, err)
	}
	if _, ok := readOwner(wt.gitDir); ok {
		t.Fatal("the kept worktree still names its owner")
	}
}

func TestSweepOutsideARepositoryRunsNothing(t *testing.T) {
	sw, err := Sweep(context.Background(), t.TempDir())
	if err != nil || len(sw.Removed)+len(sw.Kept) != 0 {
		t.Fatalf("Sweep = %+v, %v", sw, err)
	}
}

// Two sessions opening at once report a kept worktree once between them.
func TestConcurrentSweepsReportOnce(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	wt, err := Create(ctx, repo, "w1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path, "a.txt"), "two\n")
	orphan(t, wt)
	kept := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			sw, err := Sweep(ctx, repo)
			if err != nil {
				t.Error(err)
			}
			kept <- len(sw.Kept)
		}()
	}
	if n := <-kept + <-kept; n != 1 {
		t.Fatalf("the kept worktree was reported %d times, want once", n)
	}
}
