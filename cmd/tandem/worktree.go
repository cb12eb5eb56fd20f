package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// checkWorktreeFlag refuses a --worktree name before anything starts, and
// a --worktree with a flag that picks an existing session.
func (f *runFlags) checkWorktreeFlag() error {
	if f.worktree == "" {
		return nil
	}
	if f.resume != "" || f.cont {
		return errors.New("--worktree starts a new session in a new worktree: drop --resume/--continue (to go on in a kept worktree, run tandem --continue in its folder)")
	}
	if err := worktree.CheckName(f.worktree); err != nil {
		return fmt.Errorf("--worktree: %w", err)
	}
	return nil
}

// enterWorktree makes the worktree --worktree names in the repository of
// the run's folder and points the run at it (f.cwd). leave, called when
// the session has closed, removes the worktree and its branch when
// nothing changed there and otherwise says where it was kept.
func enterWorktree(ctx context.Context, f *runFlags, stderr io.Writer) (leave func(), err error) {
	if f.worktree == "" {
		return func() {}, nil
	}
	dir, err := absCwd(f.cwd)
	if err != nil {
		return nil, err
	}
	tree, err := worktree.Create(ctx, dir, f.worktree)
	if err != nil {
		return nil, fmt.Errorf("--worktree %s: %w", f.worktree, err)
	}
	f.cwd = tree.Path
	out := termsafe.Writer(stderr)
	return func() {
		removed, err := tree.Finish(context.Background())
		switch {
		case removed:
			fmt.Fprintf(out, "tandem: nothing changed in worktree %s: removed it and branch %s\n", tree.Name, tree.Branch)
		case err != nil:
			fmt.Fprintf(out, "tandem: %s (%v)\n", tree.KeptMessage(), err)
		default:
			fmt.Fprintf(out, "tandem: %s\n", tree.KeptMessage())
		}
	}, nil
}
