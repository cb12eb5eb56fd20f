// Package worktree creates, lists and removes the git worktrees a session
// or an isolated sub-agent works in (`tandem --worktree NAME`, a
// sub-agent's `isolation: "worktree"`), through the git CLI. A worktree
// NAME is the folder Folder/NAME under the repository's top folder, on a
// new branch BranchPrefix+NAME started from HEAD. The place is fixed here:
// nothing a repository holds (a symbolic link, a .git file naming another
// git folder) moves it, and names are checked where they enter (CheckName).
// A worktree nothing changed is removed with its branch; a changed one is
// kept for the user to review and merge.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	"github.com/tandem-agent/tandem/internal/regular"
)

// gitTimeout bounds each git command.
const gitTimeout = 60 * time.Second

// Tree is one worktree tandem made.
type Tree struct {
	Name string
	// Repo is the repository's top folder (the checkout the worktree was
	// made from); Path is the worktree's folder, Repo/Folder/Name.
	Repo, Path string
	// Branch is the worktree's branch; Base the commit it started from.
	Branch, Base string
	// dotGit is the worktree's .git file as git wrote it: a file naming a
	// different git folder later is not followed (see Changed).
	dotGit []byte
	// gitDir is the worktree's own git folder (.git/worktrees/NAME of the
	// repository), where its owner marker lives (owner.go).
	gitDir string
	// made are the folders Create made for Folder (removed again when
	// empty).
	made []string
}

// ErrNotRepo is returned for a folder outside any git repository.
var ErrNotRepo = errors.New("not in a git repository")

// ErrExists is returned when the name's folder or branch exists.
var ErrExists = errors.New("worktree exists")

// Create makes worktree name for the repository dir lies in: the folder
// Folder/name under the repository's top folder, on a new branch
// BranchPrefix+name from HEAD. Errors name the fix: dir not in a
// repository, a repository without a commit, a name in use, a folder on
// the way that is a symbolic link, a repository whose git configuration
// names programs git would run while checking out.
func Create(ctx context.Context, dir, name string) (*Tree, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, errors.New("git is not installed (or not on PATH): install git to use worktrees")
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	t := &Tree{Name: name, Branch: BranchPrefix + name}
	if err := checkBranch(ctx, gitBin, t.Branch); err != nil {
		return nil, err
	}
	top, err := git(ctx, gitBin, dir, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		return nil, fmt.Errorf("%s: %w: run `git init` there (and commit once), or start tandem in a git repository", dir, ErrNotRepo)
	}
	if t.Repo, err = filepath.EvalSymlinks(top); err != nil {
		return nil, fmt.Errorf("resolve the repository folder %s: %w", top, err)
	}
	if t.Base, err = git(ctx, gitBin, t.Repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil || t.Base == "" {
		return nil, fmt.Errorf("%s has no commit yet: commit once (git commit), then a worktree can start from it", t.Repo)
	}
	if _, err := git(ctx, gitBin, t.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+t.Branch); err == nil {
		return nil, fmt.Errorf("branch %s: %w: pick another name, or remove it (git worktree remove %s; git branch -D %s)", t.Branch, ErrExists, filepath.Join(t.Repo, Folder, name), t.Branch)
	}
	// The repository's own configuration could make the checkout run a
	// program (a smudge filter); hooks are turned off for every git run
	// (gitEnv), the rest is refused here.
	risks, err := gitrepo.RepoConfigRisks(ctx, t.Repo)
	if err != nil {
		return nil, err
	}
	if len(risks) > 0 {
		return nil, fmt.Errorf("%s: its git configuration names programs git would run while checking out a worktree (%s): remove them, or make the worktree yourself (git worktree add) and start tandem in it",
			t.Repo, strings.Join(risks, "; "))
	}
	parent, err := t.makeFolder()
	if err != nil {
		return nil, err
	}
	t.Path = filepath.Join(parent, name)
	if _, err := os.Lstat(t.Path); err == nil {
		t.removeMade()
		return nil, fmt.Errorf("%s: %w: pick another name, or remove it (git worktree remove %s)", t.Path, ErrExists, t.Path)
	}
	if _, err := git(ctx, gitBin, t.Repo, "worktree", "add", "--quiet", "-b", t.Branch, "--", t.Path, t.Base); err != nil {
		t.removeMade()
		return nil, fmt.Errorf("git worktree add %s: %w", t.Path, err)
	}
	t.dotGit, _, err = regular.ReadCapped(filepath.Join(t.Path, ".git"), 4096)
	if err != nil {
		_ = t.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("read the new worktree's .git file: %w", err)
	}
	// The marker naming this process lets a later run remove the worktree
	// if this one dies before Finish (Sweep).
	gitDir, _, ok := gitrepo.LinkedWorktree(t.Path)
	if !ok {
		_ = t.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("the new worktree %s does not link back to %s as git made it: remove it and try again", t.Path, t.Repo)
	}
	t.gitDir = gitDir
	if err := t.claim(); err != nil {
		_ = t.Remove(context.WithoutCancel(ctx))
		return nil, err
	}
	return t, nil
}

// makeFolder makes Repo/Folder, refusing any part of it that is not a
// real folder (a symbolic link a repository holds would move the
// worktree elsewhere).
func (t *Tree) makeFolder() (string, error) {
	dir := t.Repo
	for _, part := range strings.Split(Folder, "/") {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil:
			t.removeMade()
			return "", fmt.Errorf("%s is not a folder (a symbolic link or a file): worktrees go in %s under the repository; remove or rename it", dir, Folder)
		case !errors.Is(err, os.ErrNotExist):
			t.removeMade()
			return "", fmt.Errorf("worktree folder: %w", err)
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.removeMade()
			return "", fmt.Errorf("make the worktree folder: %w", err)
		}
		t.made = append(t.made, dir)
	}
	return dir, nil
}

// removeMade removes the folders makeFolder made, deepest first, when they
// are empty.
func (t *Tree) removeMade() {
	for i := len(t.made) - 1; i >= 0; i-- {
		if os.Remove(t.made[i]) != nil {
			break
		}
	}
	t.made = nil
}

// Changed reports whether anything in the worktree differs from where it
// started: a change to a tracked file, an untracked file that is not
// ignored, a commit on its branch (or its branch moved while the worktree
// is on another commit). A .git file that no longer names the
// git folder git made counts as changed without asking git anything (git
// would read the configuration of whatever it names).
func (t *Tree) Changed(ctx context.Context) (bool, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return true, errors.New("git is not installed (or not on PATH)")
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	now, _, err := regular.ReadCapped(filepath.Join(t.Path, ".git"), 4096)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Lstat(t.Path); errors.Is(serr, os.ErrNotExist) {
			return false, nil // the folder is gone: nothing to keep
		}
	}
	if err != nil || !bytes.Equal(now, t.dotGit) {
		return true, nil
	}
	st, err := git(ctx, gitBin, t.Path, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return true, fmt.Errorf("git status in %s: %w", t.Path, err)
	}
	if st != "" {
		return true, nil
	}
	head, err := git(ctx, gitBin, t.Path, "rev-parse", "HEAD")
	if err != nil {
		return true, fmt.Errorf("git rev-parse HEAD in %s: %w", t.Path, err)
	}
	if head != t.Base {
		return true, nil
	}
	// Remove deletes the branch too: a commit on it is a change even
	// when the worktree itself is elsewhere (a detached HEAD).
	if tip, err := git(ctx, gitBin, t.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+t.Branch); err == nil && tip != t.Base {
		return true, nil
	}
	return false, nil
}

// Remove removes the worktree's folder and its branch, whatever it holds,
// and the folders Create made for it when they are empty.
func (t *Tree) Remove(ctx context.Context) error {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return errors.New("git is not installed (or not on PATH)")
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	var errs []error
	if _, err := git(ctx, gitBin, t.Repo, "worktree", "remove", "--force", "--force", "--", t.Path); err != nil {
		// A folder already deleted by hand leaves git's record of it:
		// prune drops records whose folder is gone.
		if _, serr := os.Lstat(t.Path); !errors.Is(serr, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("git worktree remove %s: %w", t.Path, err))
		} else if _, err := git(ctx, gitBin, t.Repo, "worktree", "prune"); err != nil {
			errs = append(errs, fmt.Errorf("git worktree prune: %w", err))
		}
	}
	if _, err := git(ctx, gitBin, t.Repo, "branch", "-D", "--", t.Branch); err != nil {
		if _, verr := git(ctx, gitBin, t.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+t.Branch); verr == nil {
			errs = append(errs, fmt.Errorf("git branch -D %s: %w", t.Branch, err))
		}
	}
	t.removeMade()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w (remove it by hand: git worktree remove --force %s; git branch -D %s)", err, t.Path, t.Branch)
	}
	return nil
}

// Finish ends a worktree's use: an unchanged one is removed with its
// branch (removed true); a changed one is kept for review, and its owner
// marker removed (it is the user's now: no later Sweep touches or reports
// it). An error keeps it too (and says why), marker and all, so a later
// Sweep looks at it again.
func (t *Tree) Finish(ctx context.Context) (removed bool, err error) {
	removed, changed, err := t.tidy(ctx)
	if err != nil || !changed {
		return removed, err
	}
	return false, t.disown()
}

// Tidy is Finish for a worktree whose end is not final yet (an isolated
// sub-agent's, which its session's Set finishes at the session's end): a
// changed one is kept and stays this process's, so a run killed before
// then leaves it to the next one's Sweep, which reports it to the user.
func (t *Tree) Tidy(ctx context.Context) (removed bool, err error) {
	removed, _, err = t.tidy(ctx)
	return removed, err
}

func (t *Tree) tidy(ctx context.Context) (removed, changed bool, err error) {
	changed, err = t.Changed(ctx)
	if err != nil || changed {
		return false, changed, err
	}
	if err := t.Remove(ctx); err != nil {
		return false, false, err
	}
	return true, false, nil
}

// KeptMessage says where a kept worktree is and how to merge or drop it.
func (t *Tree) KeptMessage() string {
	return fmt.Sprintf("worktree %s kept at %s on branch %s: review it, then merge it (git merge %s) or remove it (git worktree remove --force %s && git branch -D %s)",
		t.Name, t.Path, t.Branch, t.Branch, t.Path, t.Branch)
}

// Entry is one worktree of a repository as `git worktree list` reports it.
type Entry struct {
	Path, Branch, Head string
}

// List lists the worktrees tandem's place holds (under Folder of the
// repository dir lies in).
func List(ctx context.Context, dir string) ([]Entry, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, errors.New("git is not installed (or not on PATH)")
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err := git(ctx, gitBin, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	out, err := git(ctx, gitBin, top, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("git worktree list: %w", err)
	}
	place := filepath.Join(top, Folder) + string(filepath.Separator)
	var list []Entry
	for _, e := range parseList(out) {
		if strings.HasPrefix(e.Path, place) {
			list = append(list, e)
		}
	}
	return list, nil
}

// parseList reads `git worktree list --porcelain -z`: every worktree of
// the repository, the main one first.
func parseList(out string) []Entry {
	var list []Entry
	var cur Entry
	for _, f := range strings.Split(out, "\x00") {
		k, v, _ := strings.Cut(f, " ")
		switch k {
		case "worktree":
			cur = Entry{Path: v}
		case "HEAD":
			cur.Head = v
		case "branch":
			cur.Branch = strings.TrimPrefix(v, "refs/heads/")
		case "":
			if cur.Path != "" {
				list = append(list, cur)
			}
			cur = Entry{}
		}
	}
	return list
}

// gitEnv is the environment every git run here gets: no prompt, the
// folder's own repository (not one GIT_DIR names), no hooks, no
// fsmonitor (gitrepo.GitHardening, as config entries that beat every
// config file).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS":
			continue
		}
		if strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(gitrepo.GitHardening)))
	for i, kv := range gitrepo.GitHardening {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// git runs git in dir and returns its trimmed standard output; an error
// carries its standard error.
func git(ctx context.Context, gitBin, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gitBin, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return strings.TrimSpace(out.String()), fmt.Errorf("%v: %s", err, msg)
		}
		return strings.TrimSpace(out.String()), err
	}
	return strings.TrimSpace(out.String()), nil
}
