package shell

import (
	"path/filepath"
	"strings"
)

// maxGitDirs bounds the folders a script's cd commands may reach before
// the validator gives up on knowing where git runs.
const maxGitDirs = 16

// resolveGitDirs tells each read-only git command which folders it may run
// in, since git takes its configuration from the repository it finds
// there. Every `cd` in the script counts for every git command, wherever
// it stands: the folders are the starting one plus those the cd/pushd
// targets reach, taken in source order, each relative target applied to
// every folder reached so far. A cd that may run more than once (in a loop
// or function), inside `bash -c`/`eval`, or to a target that is not a
// literal (`cd $X`, `cd -`) makes the folder unknown, and git is then not
// read-only.
func (a *analyzer) resolveGitDirs() {
	dirs := []string{a.cwd}
	if a.cwd == "" {
		dirs = []string{"."}
	}
	var targets []string
	unknown := ""
	for _, c := range a.cmds {
		if c.Program != "cd" && c.Program != "pushd" {
			continue
		}
		t, ok := cdTarget(c, a.home)
		switch {
		case c.Via != "":
			unknown = "`" + c.Text + "` runs inside " + c.Via
		case a.repeats(c.off):
			unknown = "`" + c.Text + "` is in a loop or function and may run more than once"
		case !ok:
			unknown = "`" + c.Text + "` changes to a folder that is not known before it runs"
		case t != "":
			targets = append(targets, t)
		}
	}
	if unknown == "" {
		dirs = reachable(dirs, targets)
		if len(dirs) > maxGitDirs {
			unknown = "the script's cd commands reach too many folders to check"
		}
	}
	for i := range a.cmds {
		c := &a.cmds[i]
		if c.Program != "git" || !c.ReadOnly {
			continue
		}
		if unknown != "" {
			c.unsafe("git reads the configuration of the repository it runs in, and " + unknown)
			continue
		}
		c.GitDirs = append([]string(nil), dirs...)
	}
}

// cdTarget returns the folder a cd/pushd changes to ("" when it changes to
// one already reachable, as `pushd` alone or `pushd +1` do); ok is false
// when the target is not known.
func cdTarget(c Command, home string) (string, bool) {
	if c.Dynamic {
		return "", false
	}
	var ops []string
	for i, a := range c.Argv[1:] {
		if a == "--" {
			ops = append(ops, c.Argv[i+2:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		ops = append(ops, a)
	}
	switch {
	case len(ops) == 0 && c.Program == "pushd":
		return "", true // swaps the two top folders, both reachable
	case len(ops) == 0:
		if home == "" {
			return "", false
		}
		return home, true
	case len(ops) > 1:
		return "", false
	}
	t := ops[0]
	switch {
	case t == "-", strings.ContainsAny(t, "*?[$`"):
		return "", false
	case c.Program == "pushd" && (strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-")):
		return "", true // rotates the stack of reachable folders
	case t == "~" || strings.HasPrefix(t, "~/"):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, t[1:]), true
	case strings.HasPrefix(t, "~"):
		return "", false // ~user
	}
	return t, true
}

// reachable applies the cd targets in order (a relative one to every
// folder reached so far), stopping once over maxGitDirs.
func reachable(dirs, targets []string) []string {
	seen := map[string]bool{}
	for _, d := range dirs {
		seen[d] = true
	}
	for _, t := range targets {
		var next []string
		if filepath.IsAbs(t) {
			next = []string{filepath.Clean(t)}
		} else {
			for _, d := range dirs {
				next = append(next, filepath.Join(d, t))
			}
		}
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				dirs = append(dirs, n)
			}
		}
		if len(dirs) > maxGitDirs {
			break
		}
	}
	return dirs
}

// repeats reports whether the top-level source offset lies in a loop or
// function body.
func (a *analyzer) repeats(off int) bool {
	for _, r := range a.repeating {
		if off >= r[0] && off < r[1] {
			return true
		}
	}
	return false
}
