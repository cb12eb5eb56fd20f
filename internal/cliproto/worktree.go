package cliproto

import (
	"context"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// setWorktree reads --worktree/-w NAME (Claude Code's flag), checked
// where it enters.
func setWorktree(f *Flags, v string) error {
	if err := worktree.CheckName(v); err != nil {
		return fmt.Errorf("--worktree: %w", err)
	}
	f.Worktree = v
	return nil
}

// enterWorktree makes --worktree's worktree in the repository of wd and
// returns its folder, the session's; wd when there is no --worktree.
func (d *driver) enterWorktree(ctx context.Context, wd string) (string, error) {
	if d.f.Worktree == "" {
		return wd, nil
	}
	if d.f.Resume != "" || d.f.Continue {
		return "", errors.New("--worktree starts a new session in a new worktree: drop --resume/--continue")
	}
	tree, err := worktree.Create(ctx, wd, d.f.Worktree)
	if err != nil {
		return "", fmt.Errorf("--worktree %s: %w", d.f.Worktree, err)
	}
	d.mu.Lock()
	d.tree = tree
	d.mu.Unlock()
	return tree.Path, nil
}

// leaveWorktree, once the session has closed, removes an unchanged
// worktree with its branch and says where a changed one was kept.
func (d *driver) leaveWorktree() {
	d.mu.Lock()
	tree := d.tree
	d.tree = nil
	d.mu.Unlock()
	if tree == nil {
		return
	}
	out := termsafe.Writer(d.o.Stderr)
	removed, err := tree.Finish(context.Background())
	switch {
	case removed:
		fmt.Fprintf(out, "tandem: nothing changed in worktree %s: removed it and branch %s\n", tree.Name, tree.Branch)
	case err != nil:
		fmt.Fprintf(out, "tandem: %s (%v)\n", tree.KeptMessage(), err)
	default:
		fmt.Fprintf(out, "tandem: %s\n", tree.KeptMessage())
	}
}
