package app

import (
	"context"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// sweepWorktrees finishes, as a session opens, the worktrees a tandem
// killed before its end (SIGKILL, a crash) left in the session's
// repository (worktree.Sweep): unchanged ones are removed with their
// branches, as that tandem would have; each changed one is kept and said
// once, as a status notice naming its folder and branch (the `worktree`
// notice a session's end gives for its own kept ones).
func sweepWorktrees(ctx context.Context, l *session.Live, cwd string) {
	sw, err := worktree.Sweep(ctx, cwd)
	for _, t := range sw.Kept {
		l.Events().Emit(event.Event{Type: event.Status, Message: "a tandem that stopped before its end left this worktree: " + t.KeptMessage(),
			Meta: map[string]any{"notice": "worktree", "path": t.Path, "branch": t.Branch}})
	}
	if err != nil {
		l.Events().Emit(event.Event{Type: event.Error, Error: "the worktrees a stopped tandem left: " + err.Error()})
	}
}
