package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	"github.com/tandem-agent/tandem/internal/regular"
)

// Swept is what Sweep did.
type Swept struct {
	// Removed are worktrees whose owner was gone and that nothing had
	// changed: removed with their branches, as Finish would have.
	Removed []*Tree
	// Kept are worktrees whose owner was gone and that had changed: left
	// for the user and reported this once (their markers are removed, so
	// no later sweep reports them again).
	Kept []*Tree
}

// Sweep finishes what a tandem killed before its end (SIGKILL, a crash, a
// power cut) left of the worktrees it made, in the repository dir lies
// in: each worktree under Folder whose owner marker (owner.go) names a
// process that is gone is finished as Finish would have finished it:
// removed with its branch when unchanged, otherwise kept and reported.
// Never touched: a worktree without a marker (the user made it, or it
// was kept and handed over already), one whose owner may still run (on
// this machine or not: owner.alive), one whose links or marker do not
// match what git lists. A session opening inside such a worktree (dir
// within it) takes it over instead: the marker then names this process,
// so no other tandem sweeps it from under that session. Outside a
// repository, or in one without Folder, it does nothing and runs no git.
func Sweep(ctx context.Context, dir string) (Swept, error) {
	var sw Swept
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !placeAbove(real) {
		return sw, nil
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return sw, nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	out, err := git(ctx, gitBin, real, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return sw, nil // not a repository: nothing of tandem's
	}
	all := parseList(out)
	if len(all) < 2 {
		return sw, nil
	}
	repo, err := filepath.EvalSymlinks(all[0].Path)
	if err != nil {
		return sw, nil
	}
	place := filepath.Join(repo, Folder)
	me := self()
	vetted := false
	var errs []error
	for _, e := range all[1:] {
		path, err := filepath.EvalSymlinks(e.Path)
		if err != nil || filepath.Dir(path) != place {
			continue
		}
		gitDir, _, ok := gitrepo.LinkedWorktree(path)
		if !ok {
			continue
		}
		o, ok := readOwner(gitDir)
		if !ok || o.alive(me) || o.Path != path || o.Name != filepath.Base(path) {
			continue
		}
		t := &Tree{Name: o.Name, Repo: repo, Path: path, Branch: o.Branch, Base: o.Base, gitDir: gitDir, made: madeFor(repo, o.Made)}
		if within(path, real) {
			if err := t.claim(); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if !vetted {
			// Changed runs git status there, which runs what the
			// repository's configuration names (a clean filter); Create
			// refused such a repository, so it changed since.
			risks, err := gitrepo.RepoConfigRisks(ctx, repo)
			if err != nil {
				return sw, err
			}
			if len(risks) > 0 {
				return sw, fmt.Errorf("%s: the worktrees a stopped tandem left under %s were not checked: the repository's git configuration names programs (%s); remove them by hand (git worktree remove)",
					repo, place, strings.Join(risks, "; "))
			}
			vetted = true
		}
		if t.dotGit, _, err = regular.ReadCapped(filepath.Join(path, ".git"), 4096); err != nil {
			continue
		}
		changed := e.Branch != o.Branch // on another branch: the agent moved it
		if !changed {
			if changed, err = t.Changed(ctx); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if changed {
			mine, err := t.handOver()
			if err != nil {
				errs = append(errs, err)
			}
			if mine {
				sw.Kept = append(sw.Kept, t)
			}
			continue
		}
		if err := t.Remove(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		sw.Removed = append(sw.Removed, t)
	}
	return sw, errors.Join(errs...)
}

// placeAbove reports whether dir or a folder above it holds Folder: the
// cheap test that spares every session outside such a repository a git
// run.
func placeAbove(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, Folder)); err == nil && fi.IsDir() {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// madeFor keeps of a marker's made folders only those Create can have
// made (Folder's parts under repo), so a marker cannot have another folder
// removed.
func madeFor(repo string, made []string) []string {
	var ok []string
	dir := repo
	for _, part := range strings.Split(Folder, "/") {
		dir = filepath.Join(dir, part)
		ok = append(ok, dir)
	}
	var out []string
	for _, m := range made {
		if slices.Contains(ok, m) {
			out = append(out, m)
		}
	}
	return out
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
