package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// isolator gives a session's isolated sub-agents (isolation: worktree)
// each a git worktree of the session's repository: the child's working
// folder, roots, permission checker (permission.Rootable) and OS sandbox
// are moved there, so its file tools and commands stay inside it. A
// worktree the child leaves unchanged is removed with its branch when it
// ends; a changed one is kept and the parent told where. Whatever is
// still unchanged when the session closes is removed then.
func (w *wiring) isolator(l *session.Live, eq *Equipment) subagent.Isolator {
	set := &worktree.Set{}
	eq.addExtra(func() {
		kept, err := set.Close(context.Background())
		for _, t := range kept {
			l.Events().Emit(event.Event{Type: event.Status, Message: t.KeptMessage(), Meta: map[string]any{"notice": "worktree", "path": t.Path, "branch": t.Branch}})
		}
		if err != nil {
			l.Events().Emit(event.Event{Type: event.Error, Error: "remove the sub-agents' worktrees: " + err.Error()})
		}
	})
	return func(ctx context.Context, p subagent.Parent, t subagent.Task) (subagent.Parent, func() string, error) {
		rooted, ok := p.Checker.(permission.Rootable)
		if !ok {
			return p, nil, errors.New("this session's permission checker cannot judge another folder, so the sub-agent cannot be isolated: leave isolation out")
		}
		tree, err := worktree.Create(ctx, p.Cwd, worktree.AgentName())
		if err != nil {
			return p, nil, err
		}
		set.Add(tree)
		dir, err := sameFolderIn(tree, p.Cwd)
		if err != nil {
			_ = tree.Remove(context.WithoutCancel(ctx))
			set.Drop(tree)
			return p, nil, err
		}
		c := p
		c.Cwd = dir
		c.Roots = append([]string{dir}, rest(p.Roots)...)
		c.Checker = rooted.Rooted(dir)
		undoSandbox := func() {}
		if p.Sandbox != nil && eq.settings != nil && eq.settings.Sandbox.On() {
			// The session's sandbox lets commands write the parent's
			// folder; the child's gets the worktree instead.
			sb, _, cleanup, err := w.app.SandboxFor(eq.settings.Sandbox, c.Roots, l.Events().Emit, false)
			if err == nil {
				if err = sb.Open(); err != nil {
					cleanup()
				}
			}
			if err != nil {
				_ = tree.Remove(context.WithoutCancel(ctx))
				set.Drop(tree)
				return p, nil, fmt.Errorf("the sub-agent's sandbox: %w", err)
			}
			c.Sandbox, undoSandbox = sb, cleanup
		}
		finish := func() string {
			undoSandbox()
			removed, err := tree.Tidy(context.WithoutCancel(ctx))
			if removed {
				set.Drop(tree)
				return ""
			}
			msg := "The agent worked in its own git worktree, not in your folder; its changes are there for the user to review: " + tree.KeptMessage()
			if err != nil {
				msg += " (" + err.Error() + ")"
			}
			return msg
		}
		return c, finish, nil
	}
}

// sameFolderIn is the folder of the worktree that matches dir in the
// checkout it was made from (the repository's top folder or one below it),
// so the child sees the same part of the repository its parent does, and
// no more.
func sameFolderIn(tree *worktree.Tree, dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	rel, err := filepath.Rel(tree.Repo, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside the repository %s", dir, tree.Repo)
	}
	return filepath.Join(tree.Path, rel), nil
}

// rest is roots without the first (the session's folder): the --add-dir
// folders.
func rest(roots []string) []string {
	if len(roots) <= 1 {
		return nil
	}
	return roots[1:]
}
