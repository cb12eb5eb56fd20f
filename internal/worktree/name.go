package worktree

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/tandem-agent/tandem/internal/places"
)

// Folder is where a repository's worktrees go, relative to its top
// folder: Claude Code's place, so a user finds tandem's worktrees where
// Claude Code puts its own (and one .gitignore line covers both).
const Folder = places.Worktrees

// BranchPrefix starts every worktree's branch: worktree NAME is on branch
// worktree-NAME, as in Claude Code.
const BranchPrefix = "worktree-"

// MaxName bounds a name's length.
const MaxName = 64

// nameRE is what a name may be: it becomes a folder and a branch, so no
// path separator, no leading dot or dash (a hidden folder, an option to
// git), nothing a shell or git treats specially.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckName refuses a name that cannot be both a folder under Folder and
// a branch: a path separator, "..", a leading "-" or ".", characters
// outside letters, digits, ".", "_" and "-", more than MaxName characters,
// or what git refuses as a branch name. The error names the fix.
func CheckName(name string) error {
	const fix = "use letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. feature-auth)"
	switch {
	case name == "":
		return fmt.Errorf("worktree name is empty: %s", fix)
	case len(name) > MaxName:
		return fmt.Errorf("worktree name %q is longer than %d characters: use a shorter one", name, MaxName)
	case strings.Contains(name, ".."), !nameRE.MatchString(name):
		return fmt.Errorf("worktree name %q: %s", name, fix)
	case strings.HasSuffix(name, ".lock"), strings.HasSuffix(name, "."):
		return fmt.Errorf("worktree name %q: git refuses a branch ending in %q; %s", name, name[strings.LastIndex(name, "."):], fix)
	}
	return nil
}

// checkBranch asks git whether branch is a valid branch name (the last
// word on what git refuses; CheckName's own rules come first).
func checkBranch(ctx context.Context, gitBin, branch string) error {
	cmd := exec.CommandContext(ctx, gitBin, "check-ref-format", "--branch", branch)
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("branch name %q: git refuses it (%s): choose another worktree name", branch, strings.TrimSpace(string(out)))
	}
	return nil
}
