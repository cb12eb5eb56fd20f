package subagent

import (
	"context"
	"fmt"
	"strings"
)

// IsolationWorktree: the sub-agent works in its own git worktree of the
// session's repository (Claude Code's `isolation: worktree`).
const IsolationWorktree = "worktree"

// Isolations are the isolation values tandem acts on.
var Isolations = []string{IsolationWorktree}

// CheckIsolation refuses an isolation tandem cannot give ("" is none).
func CheckIsolation(s string) error {
	switch s {
	case "", IsolationWorktree:
		return nil
	case "remote":
		return fmt.Errorf("isolation %q (a cloud environment) is not supported: use %q, or leave it out", s, IsolationWorktree)
	}
	return fmt.Errorf("isolation %q: use %q, or leave it out", s, IsolationWorktree)
}

// Isolator gives an isolated run its own workspace (internal/app's, over
// internal/worktree): it returns the Parent the child runs from — its
// Cwd, Roots, Checker and Sandbox moved to the new workspace — and a
// function called once when the child ends, which removes a workspace
// the child left unchanged and otherwise returns what the caller must
// know of the kept one (its branch and folder).
type Isolator func(ctx context.Context, p Parent, t Task) (Parent, func() string, error)

// runIsolated runs t in a workspace of its own. The child's changes stay
// there: nothing is merged into the parent's folder.
func (r *Runner) runIsolated(ctx context.Context, p Parent, t Task, iso string) (Outcome, error) {
	if err := CheckIsolation(iso); err != nil {
		return Outcome{}, err
	}
	if r.Isolate == nil {
		return Outcome{}, fmt.Errorf("isolation %q is not available in this session (the claude-code runtime, or no git): leave isolation out", iso)
	}
	ip, finish, err := r.Isolate(ctx, p, t)
	if err != nil {
		return Outcome{}, fmt.Errorf("isolation %q: %w", iso, err)
	}
	t.Isolation, t.Agent = "", withoutIsolation(t.Agent)
	out, err := r.Run(ctx, ip, t)
	out.Worktree = strings.TrimSpace(finish())
	return out, err
}

// withoutIsolation is d for the run inside the workspace already made.
func withoutIsolation(d *Def) *Def {
	c := *d
	c.Isolation = ""
	return &c
}
