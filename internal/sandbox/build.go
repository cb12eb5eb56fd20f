package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tandem-agent/tandem/internal/gitrepo"
)

// Input is what a session knows that the policy is made of.
type Input struct {
	Config Config
	// Roots are the workspace and --add-dir folders (writable). A root
	// that is a linked git worktree brings its repository's common git
	// folder as a write root too (linkedGitDirs).
	Roots []string
	// Home is the user's home folder.
	Home string
	// Secrets are the paths no command may read: the credential paths
	// (secretpaths.HomePaths) and tandem's own files.
	Secrets []string
	// ReadOnly are the protected paths inside the roots.
	ReadOnly []string
	// TempDir is the session's private temporary folder.
	TempDir string
	// ProxySocket is the proxy's unix socket ("" while there is none:
	// no network).
	ProxySocket string
	Getenv      func(string) string
}

// Build makes the policy for in.
func Build(in Input) (Policy, error) {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p := Policy{TempDir: in.TempDir, DenyRead: slices.Clone(in.Secrets), ReadOnly: slices.Clone(in.ReadOnly)}
	p.Network.ProxySocket = in.ProxySocket
	p.WriteRoots = append(p.WriteRoots, in.Roots...)
	gitRoots, gitReadOnly := linkedGitDirs(in.Roots)
	p.WriteRoots = append(p.WriteRoots, gitRoots...)
	p.GitDirs = append(ownGitDirs(in.Roots), gitRoots...)
	p.ReadOnly = appendNew(p.ReadOnly, gitReadOnly...)
	for _, w := range in.Config.Write {
		d := expand(w, in.Home, getenv)
		if d == "" {
			return p, fmt.Errorf("sandbox write %q: give an absolute folder or one under ~/", w)
		}
		p.WriteRoots = append(p.WriteRoots, d)
	}
	for _, name := range in.Config.ProfileList() {
		prof := profiles[name]
		p.Profiles = append(p.Profiles, name)
		var dirs []string
		for _, w := range prof.Write {
			if d := expand(w, in.Home, getenv); d != "" {
				dirs = append(dirs, d)
			}
		}
		p.WriteRoots = append(p.WriteRoots, dirs...)
		makeCaches(prof, dirs, getenv("PATH"))
	}
	return p, p.validate()
}

// AllowedHosts is the network allow-list in force: the config's hosts and
// the profiles' registries.
func AllowedHosts(c Config) []string {
	hosts := slices.Clone(c.Network.Allow)
	for _, name := range c.ProfileList() {
		hosts = append(hosts, profiles[name].Hosts...)
	}
	slices.Sort(hosts)
	return slices.Compact(hosts)
}

// linkedGitDirs are the write roots and read-only places git needs for the
// roots that are linked worktrees (a `tandem --worktree` session's folder,
// an isolated sub-agent's): a worktree's HEAD, index, objects, refs and
// logs live in its repository's common git folder, outside the worktree,
// so without it `git commit` fails in the sandbox. What in that folder
// makes git run a program later (hooks, config, ...: gitrepo.ProgramFiles,
// the list the main checkout's .git is kept by) stays read-only, so a
// command cannot plant a hook or an alias that runs outside the sandbox.
// The folder is found by reading the worktree's link files, each checked
// against the others (gitrepo.LinkedWorktree), never by running git.
func linkedGitDirs(roots []string) (write, readOnly []string) {
	for _, r := range roots {
		_, common, ok := gitrepo.LinkedWorktree(r)
		if !ok || slices.Contains(write, common) {
			continue
		}
		write = append(write, common)
		readOnly = append(readOnly, gitrepo.ProgramFiles(common)...)
	}
	return write, readOnly
}

// ownGitDirs are the roots' own .git folders (a directory: a worktree's
// or a submodule's .git file names a folder found elsewhere).
func ownGitDirs(roots []string) []string {
	var out []string
	for _, r := range roots {
		d := filepath.Join(r, ".git")
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// appendNew appends the entries of add that list lacks.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
