package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// Under the claude-code runtime (the real CLI), the checkpoint records what
// Claude Code's own Write and Bash changed (seen through tandem's
// PreToolUse and PostToolUse hooks), a rewind puts the files back, and the
// next turn resumes the Claude Code conversation from before the prompt.
func TestFeatureClaudeCodeRewind(t *testing.T) {
	t.Parallel()
	x := newClaudeCodeE2E(t, func(work string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.TextStep("hi there"),
			scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": filepath.Join(work, "notes.txt"), "content": "v1\n"})),
			scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "printf 'changed\\n' > keep.txt && rm old.txt && printf 'gen\\n' > gen.txt"})),
			scripted.TextStep("changed everything"),
		}}
	})
	x.WriteFile("keep.txt", "keep\n")
	x.WriteFile("old.txt", "old\n")
	cc := []string{"--runtime", "claude-code", "--permission-mode", "trust"}
	r1 := x.RunDetached(streamArgs("prompt one: hello", cc...)...)
	mustSucceed(t, r1)
	id := r1.Result().SessionID
	r2 := x.RunDetached(streamArgs("prompt two: change files", append([]string{"--resume", id}, cc...)...)...)
	mustSucceed(t, r2)
	if res := toolResults(r2); res["w1"].IsError || res["b1"].IsError {
		t.Fatalf("tools failed: %+v", res)
	}
	if pts := eventsOf(r2, event.RewindPoint); len(pts) != 1 || pts[0].Checkpoint != 2 {
		t.Errorf("rewind_point of prompt two: %+v", pts)
	}
	cps := checkpointsOf(t, x, id)
	if len(cps) != 2 {
		t.Fatalf("checkpoints: %+v", cps)
	}
	if got, want := fileStates(cps[1]), "gen.txt=absent keep.txt=saved notes.txt=absent old.txt=saved"; got != want {
		t.Errorf("checkpoint 2 files: %s, want %s", got, want)
	}

	done := x.Run("sessions", "rewind", id, "--to", "2")
	if done.Code != 0 {
		t.Fatalf("rewind: %s%s", done.Stdout, done.Stderr)
	}
	if x.ReadFile("keep.txt") != "keep\n" || x.ReadFile("old.txt") != "old\n" || fileExists(filepath.Join(x.Work, "gen.txt")) || fileExists(filepath.Join(x.Work, "notes.txt")) {
		t.Fatalf("files not restored: keep=%q old=%q", x.ReadFile("keep.txt"), x.ReadFile("old.txt"))
	}

	before := len(x.srv.MainRequests())
	r3 := x.RunDetached(streamArgs("prompt three: instead", append([]string{"--resume", id}, cc...)...)...)
	mustSucceed(t, r3)
	reqs := x.srv.MainRequests()
	if len(reqs) <= before {
		t.Fatal("no model request for prompt three")
	}
	first := string(reqs[before].RawBody)
	if strings.Contains(first, "prompt two") || !strings.Contains(first, "prompt one") || !strings.Contains(first, "prompt three") {
		t.Errorf("Claude Code did not resume from before prompt two:\n%s", first)
	}
}
