package gitrepo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/regular"
)

// maxLinkFile bounds the small files git links a worktree with (.git,
// commondir, gitdir): each holds one path.
const maxLinkFile = 4096

// ProgramFiles lists what in the git folder gitDir configures programs
// that git runs later, outside any sandbox: its hooks folder, its config
// (core.hooksPath, aliases, filters, fsmonitor), config.worktree (read when
// extensions.worktreeConfig is on) and commondir (it names the folder
// whose config git reads), the last two in each of its linked worktrees'
// folders (worktrees/*), and all four in each of its submodules' git
// folders (modules/**, nested ones too: git runs a submodule's hooks and
// config when it works in the submodule, and `git status` does in the
// top folder). The one list: the main checkout's .git
// (permission.ProgramPaths) and a linked worktree's common folder (the OS
// sandbox, internal/sandbox's Build) are both kept read-only from it, and
// the sandbox removes any of them that did not exist when it started and
// appears (internal/sandbox's guard). Only the worktrees and submodules
// that exist now are listed, at most maxModules submodule folders down to
// maxModuleDepth names deep.
func ProgramFiles(gitDir string) []string {
	out := programFilesOf(gitDir)
	ents, _ := os.ReadDir(filepath.Join(gitDir, "worktrees"))
	for _, e := range ents {
		if e.IsDir() {
			w := filepath.Join(gitDir, "worktrees", e.Name())
			out = append(out, filepath.Join(w, "config.worktree"), filepath.Join(w, "commondir"))
		}
	}
	for _, m := range moduleGitDirs(gitDir) {
		out = append(out, programFilesOf(m)...)
	}
	return out
}

// programFilesOf are the program files of one git folder itself.
func programFilesOf(gitDir string) []string {
	return []string{filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "config"),
		filepath.Join(gitDir, "config.worktree"), filepath.Join(gitDir, "commondir")}
}

// Bounds on the submodule folders ProgramFiles walks: a repository's
// submodules are a handful, and a folder a command filled with thousands
// must not make every sandboxed session's start (one bind mount each)
// slow. A submodule's name may hold slashes (modules/a/b is the git folder
// of submodule "a/b"), and nested submodules live in modules/x/modules/y.
const (
	maxModules     = 64
	maxModuleDepth = 8
)

// moduleGitDirs finds the git folders under gitDir/modules: a folder
// holding HEAD is one (and its own modules folder is searched for nested
// ones); another folder is a part of a submodule name containing slashes.
// Links are not followed.
func moduleGitDirs(gitDir string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > maxModuleDepth {
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if len(out) >= maxModules {
				return
			}
			if !e.IsDir() {
				continue
			}
			d := filepath.Join(dir, e.Name())
			if fi, err := os.Lstat(filepath.Join(d, "HEAD")); err == nil && fi.Mode().IsRegular() {
				out = append(out, d)
				walk(filepath.Join(d, "modules"), depth+1)
			} else {
				walk(d, depth+1)
			}
		}
	}
	walk(filepath.Join(gitDir, "modules"), 1)
	return out
}

// LinkedWorktree reports whether dir is the top folder of a linked git
// worktree (`git worktree add`), and returns that worktree's own git
// folder (HEAD, index: gitDir) and its repository's common git folder
// (objects, refs, config: commonDir), both resolved. Everything is read
// from files the folder's repository controls, so each link is checked
// against the others before anything trusts it: dir/.git is a regular
// file naming gitDir; gitDir's commondir file names commonDir; gitDir is
// commonDir/worktrees/<name>; gitDir's gitdir file names dir/.git back;
// commonDir holds HEAD, objects and refs. A .git file naming any other
// folder (a home folder, another repository's folder not registering dir
// as its worktree) gives ok false. The files are read with
// internal/regular (no FIFO, bounded), git is not run.
func LinkedWorktree(dir string) (gitDir, commonDir string, ok bool) {
	dotGit := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(dotGit); err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	b, _, err := regular.ReadCapped(dotGit, maxLinkFile)
	if err != nil {
		return "", "", false
	}
	gitDir, ok = linkPath(dir, b, "gitdir: ")
	if !ok {
		return "", "", false
	}
	if b, _, err = regular.ReadCapped(filepath.Join(gitDir, "commondir"), maxLinkFile); err != nil {
		return "", "", false
	}
	commonDir, ok = linkPath(gitDir, b, "")
	if !ok || filepath.Dir(gitDir) != filepath.Join(commonDir, "worktrees") {
		return "", "", false
	}
	if b, _, err = regular.ReadCapped(filepath.Join(gitDir, "gitdir"), maxLinkFile); err != nil {
		return "", "", false
	}
	back, ok := linkPath(gitDir, b, "")
	if realDot, err := filepath.EvalSymlinks(dotGit); !ok || err != nil || back != realDot {
		return "", "", false
	}
	for _, part := range []struct {
		name string
		dir  bool
	}{{"HEAD", false}, {"objects", true}, {"refs", true}} {
		fi, err := os.Stat(filepath.Join(commonDir, part.name))
		if err != nil || fi.IsDir() != part.dir {
			return "", "", false
		}
	}
	return gitDir, commonDir, true
}

// linkPath reads one of git's link files: a single line, after prefix, an
// absolute path or one relative to base (worktree.useRelativePaths),
// returned resolved. ok false for anything else.
func linkPath(base string, b []byte, prefix string) (string, bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	s := strings.TrimSuffix(string(line), "\r")
	if !strings.HasPrefix(s, prefix) {
		return "", false
	}
	s = strings.TrimSpace(s[len(prefix):])
	if s == "" || strings.ContainsRune(s, 0) {
		return "", false
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(base, s)
	}
	real, err := filepath.EvalSymlinks(s)
	if err != nil {
		return "", false
	}
	return real, true
}
