package shell

import "testing"

// Every git command the validator knows is judged by what git does when no
// further argument is given (its default action), and each subcommand form
// by what it does.
func TestGitDefaultActions(t *testing.T) {
	cases := []struct {
		cmd      string
		readOnly bool
	}{
		// Default action reads.
		{"git status", true}, {"git log", true}, {"git diff", true}, {"git show", true},
		{"git branch", true}, {"git tag", true}, {"git remote", true}, {"git reflog", true},
		{"git notes", true}, {"git shortlog", true}, {"git describe", true}, {"git ls-files", true},
		// Default action changes the repository (or is an error we do not
		// bet on).
		{"git stash", false}, {"git worktree", false}, {"git config", false},
		{"git submodule", false}, {"git bisect", false}, {"git maintenance", false},
		{"git sparse-checkout", false}, {"git symbolic-ref HEAD", false}, {"git gc", false},
		{"git lfs", false}, {"git fetch", false}, {"git checkout", false},
		// Subcommands.
		{"git stash list", true}, {"git stash show -p", true}, {"git stash -q", false},
		{"git stash push", false}, {"git stash pop", false}, {"git stash drop", false},
		{"git stash clear", false}, {"git stash save x", false}, {"git stash -- file", false},
		{"git worktree list", true}, {"git worktree add ../x", false}, {"git worktree prune", false},
		{"git reflog show", true}, {"git reflog expire --all", false}, {"git reflog delete HEAD@{1}", false},
		{"git notes list", true}, {"git notes show HEAD", true}, {"git notes add -m x", false},
		{"git notes remove", false}, {"git notes prune", false},
		{"git branch -a", true}, {"git branch new", false}, {"git branch -d x", false}, {"git branch -m x", false},
		{"git tag -l", true}, {"git tag v1", false}, {"git tag -d v1", false}, {"git tag -v v1", false},
		{"git remote -v", true}, {"git remote get-url origin", true}, {"git remote add x y", false},
		{"git remote show origin", false}, {"git remote prune origin", false},
		{"git config --get user.name", true}, {"git config --list", true}, {"git config user.name x", false},
		{"git config user.name", false}, {"git config --unset x", false},
	}
	for _, c := range cases {
		a, err := Analyze(c.cmd, "/w", "/h")
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		if got := a.ReadOnly(); got != c.readOnly {
			t.Errorf("%s: read-only %v, want %v (%v)", c.cmd, got, c.readOnly, a.Reasons())
		}
	}
}
