package permission

import (
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	"github.com/tandem-agent/tandem/internal/places"
)

// programDirs are folders inside a workspace whose contents configure
// other programs that run later (git hooks and config, editor tasks, git
// hook managers); tandem's and Claude Code's own places are
// internal/places'.
var programDirs = map[string]bool{".git": true, ".vscode": true, ".idea": true, ".husky": true}

// programFiles are single files with the same power.
var programFiles = map[string]bool{".envrc": true, ".gitmodules": true}

// protectedWhy says why writing p must ask in every mode and may never be
// learned by "allow always", or "" when it need not: p lies in a place
// tandem loads instructions, settings, skills, commands, agents, hooks or
// plugins from (internal/places, so every loader's location is covered),
// or in a folder or file that configures another program (.git, .vscode,
// .envrc, ...), or is one of extra (hook scripts named by settings). p is
// absolute; the caller checks both its spelling and its resolved form.
func protectedWhy(p string, roots places.Roots, extra []string) string {
	p = filepath.Clean(p)
	for _, e := range extra {
		if e != "" && within(filepath.Clean(e), p) {
			return "it is a hook script or a plugin, which runs later"
		}
	}
	if pl, ok := roots.Match(p); ok {
		return "tandem loads " + string(pl.Kind) + " from " + pl.Rel + ", which a later session runs or follows"
	}
	parts := splitPath(p)
	for _, part := range parts {
		if programDirs[part] {
			return part + " configures programs that run later"
		}
	}
	if len(parts) > 0 && programFiles[parts[len(parts)-1]] {
		return parts[len(parts)-1] + " configures programs that run later"
	}
	return ""
}

// protected is protectedWhy for this engine's home and configuration
// folders and hook scripts, on both spellings of a path, plus what in a
// linked worktree root's common git folder makes git run a program
// (linkedGitPrograms).
func (e *Engine) protected(paths ...string) (string, string) {
	roots := places.Roots{Home: e.opts.HomeDir, ConfigDir: e.opts.ConfigDir}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if why := protectedWhy(p, roots, e.opts.ProtectedPaths); why != "" {
			return p, why
		}
		for _, g := range e.gitPrograms {
			if within(g, filepath.Clean(p)) {
				return p, "it makes git run programs later (the git folder of the worktree you work in)"
			}
		}
	}
	return "", ""
}

// linkedGitPrograms lists, for the roots that are linked git worktrees,
// what in their repository's common git folder makes git run a program
// later: the places the OS sandbox keeps read-only there
// (gitrepo.ProgramFiles, the one list), so a file tool asks before
// writing them as the kernel refuses a command, even where that folder's
// path holds no ".git" (a bare repository's).
func linkedGitPrograms(roots []string) []string {
	var out []string
	for _, r := range roots {
		if _, common, ok := gitrepo.LinkedWorktree(r); ok {
			out = append(out, gitrepo.ProgramFiles(common)...)
		}
	}
	return out
}

// ProgramPaths lists, under a workspace root, what of programDirs and
// programFiles a command must not change even where it may write (the OS
// sandbox mounts them read-only): the whole of each, except .git, of which
// only what makes git run a program is kept (gitrepo.ProgramFiles: hooks,
// config, ...; git itself writes the rest).
func ProgramPaths(root string) []string {
	out := gitrepo.ProgramFiles(filepath.Join(root, ".git"))
	for d := range programDirs {
		if d != ".git" {
			out = append(out, filepath.Join(root, d))
		}
	}
	for f := range programFiles {
		out = append(out, filepath.Join(root, f))
	}
	return out
}
