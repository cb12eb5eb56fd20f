package permission

import (
	"path/filepath"
	"testing"
)

// A view rooted at a worktree inside the workspace judges paths against
// the worktree: it may write there (not a protected place, though under
// .claude), not in the checkout around it, and it shares the parent's
// mode.
func TestRootedJudgesInsideTheWorktreeOnly(t *testing.T) {
	repo := t.TempDir()
	wt := filepath.Join(repo, ".claude", "worktrees", "agent-1")
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: repo, Mode: AcceptEdits})
	child := e.Rooted(wt)
	inWT := map[string]string{"file_path": filepath.Join(wt, "a.txt"), "content": "x"}
	relative := map[string]string{"file_path": "a.txt", "content": "x"}
	inRepo := map[string]string{"file_path": filepath.Join(repo, "a.txt"), "content": "x"}
	if d := call(t, child, "Write", inWT, false); d.Behavior != Allow {
		t.Fatalf("write in the worktree: %+v", d)
	}
	if d := call(t, child, "Write", relative, false); d.Behavior != Allow {
		t.Fatalf("relative write: %+v", d)
	}
	if d := call(t, child, "Write", inRepo, false); d.Behavior == Allow {
		t.Fatalf("write in the main checkout allowed: %+v", d)
	}
	if d := call(t, child, "Bash", map[string]string{"command": "rm " + filepath.Join(repo, "a.txt")}, false); d.Behavior == Allow {
		t.Fatalf("a command outside the worktree allowed: %+v", d)
	}
	if d := call(t, child, "Write", map[string]string{"file_path": filepath.Join(wt, ".claude", "settings.json"), "content": "{}"}, false); d.Behavior == Allow {
		t.Fatalf("the worktree's own settings are not protected: %+v", d)
	}
	if d := call(t, e, "Write", inRepo, false); d.Behavior != Allow {
		t.Fatalf("the parent lost its workspace: %+v", d)
	}
	e.SetMode(Explore)
	if d := call(t, child, "Write", inWT, false); d.Behavior != Deny {
		t.Fatalf("the view does not follow the parent's mode: %+v", d)
	}
	if d := call(t, e.Narrowed(Explore).(Rootable).Rooted(wt), "Write", inWT, false); d.Behavior != Deny {
		t.Fatalf("a narrowed view widened by Rooted: %+v", d)
	}
}
