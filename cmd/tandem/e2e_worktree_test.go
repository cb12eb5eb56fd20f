package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/worktree"
)

// gitIn runs git in dir for a test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRepoIn makes x.Work a repository with one commit and returns what a
// leak would change: its worktrees, branches and status.
func gitRepoIn(t *testing.T, x *e2e) func() string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	x.WriteFile("a.txt", "one\n")
	gitIn(t, x.Work, "init", "-q", "-b", "main")
	gitIn(t, x.Work, "add", "a.txt")
	gitIn(t, x.Work, "commit", "-q", "-m", "first")
	return func() string {
		return gitIn(t, x.Work, "worktree", "list", "--porcelain") + "\n--\n" + gitIn(t, x.Work, "branch", "--list") +
			"\n--\n" + gitIn(t, x.Work, "status", "--porcelain", "--untracked-files=all")
	}
}

// agentResult is the Agent call's tool_result event.
func agentResult(t *testing.T, r runResult, id string) event.Event {
	t.Helper()
	for _, e := range eventsOf(r, event.ToolResult) {
		if e.ToolUseID == id && e.ParentToolUseID == "" {
			return e
		}
	}
	t.Fatalf("no tool_result for %s:\n%s", id, r.Stdout)
	return event.Event{}
}

// An isolated sub-agent edits in its own worktree: the main checkout is
// unchanged, and the parent is told the branch and folder where the
// change waits for review.
func TestE2EIsolatedSubagentEditsItsWorktree(t *testing.T) {
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "make a file", "prompt": "TASK-ISO: make a file", "isolation": "worktree"})),
			scripted.TextStep("after"),
		},
		Threads: []scripted.Thread{{Match: "TASK-ISO", Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "made-by-agent.txt", "content": "hello\n"})),
			scripted.TextStep("made it"),
		}}},
	})
	gitRepoIn(t, x)
	r := x.RunStream("go", "--permission-mode", "acceptEdits")
	mustSucceed(t, r)
	if _, err := os.Stat(filepath.Join(x.Work, "made-by-agent.txt")); err == nil {
		t.Fatal("the isolated agent wrote in the main checkout")
	}
	if st := gitIn(t, x.Work, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("main checkout changed: %s", st)
	}
	res := agentResult(t, r, "a1")
	if res.IsError || !strings.Contains(res.Output, "made it") || !strings.Contains(res.Output, "worktree-agent-") {
		t.Fatalf("Agent result: %+v", res)
	}
	list := gitIn(t, x.Work, "worktree", "list", "--porcelain")
	var kept string
	for _, l := range strings.Split(list, "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok && strings.Contains(p, filepath.Join(".claude", "worktrees", "agent-")) {
			kept = p
		}
	}
	if kept == "" || !strings.Contains(res.Output, kept) {
		t.Fatalf("kept worktree %q not named in the result:\n%s\n%s", kept, list, res.Output)
	}
	if b, err := os.ReadFile(filepath.Join(kept, "made-by-agent.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the worktree lacks the agent's file: %q %v", b, err)
	}
}

// An isolated sub-agent that changes nothing leaves nothing: no worktree,
// no branch, no folder.
func TestE2EIsolatedSubagentLeavesNothingWhenUnchanged(t *testing.T) {
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "look", "prompt": "TASK-LOOK: look around", "isolation": "worktree"})),
			scripted.TextStep("after"),
		},
		Threads: []scripted.Thread{{Match: "TASK-LOOK", Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "a.txt"})),
			scripted.TextStep("nothing to change"),
		}}},
	})
	state := gitRepoIn(t, x)
	before := state()
	r := x.RunStream("go")
	mustSucceed(t, r)
	if res := agentResult(t, r, "a1"); res.IsError || strings.Contains(res.Output, "worktree-agent-") {
		t.Fatalf("Agent result: %+v", res)
	}
	if after := state(); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s", before, after)
	}
	if _, err := os.Lstat(filepath.Join(x.Work, ".claude")); err == nil {
		t.Fatal(".claude left behind")
	}
}

// `tandem run --worktree NAME` works in .claude/worktrees/NAME on branch
// worktree-NAME: a run that changes a file keeps it (and says where); a
// run that changes nothing removes it and its branch; outside a
// repository, or with a name in use, it says how to fix it.
func TestE2ERunWorktree(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "b.txt", "content": "bee\n"})),
		scripted.TextStep("done"),
	}})
	gitRepoIn(t, x)
	r := x.RunStream("go", "--worktree", "feat", "--permission-mode", "acceptEdits")
	mustSucceed(t, r)
	wt := filepath.Join(x.Work, ".claude", "worktrees", "feat")
	if b, err := os.ReadFile(filepath.Join(wt, "b.txt")); err != nil || string(b) != "bee\n" {
		t.Fatalf("worktree file: %q %v\n%s", b, err, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(x.Work, "b.txt")); err == nil {
		t.Fatal("wrote in the main checkout")
	}
	if !strings.Contains(r.Stderr, "kept at "+wt) || !strings.Contains(r.Stderr, "worktree-feat") {
		t.Fatalf("stderr does not say where: %s", r.Stderr)
	}
	for _, e := range r.Events {
		if e.Type == event.Status && e.Cwd != "" && e.Cwd != wt {
			t.Fatalf("session cwd %s, want %s", e.Cwd, wt)
		}
	}
	if again := x.RunStream("go", "--worktree", "feat"); again.Code == 0 || !strings.Contains(again.Stderr, "pick another name") {
		t.Fatalf("a name in use: %d %s", again.Code, again.Stderr)
	}
	gitIn(t, x.Work, "worktree", "remove", "--force", wt)
	gitIn(t, x.Work, "branch", "-D", "worktree-feat")

	// Unchanged: removed with its branch.
	y := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("nothing")}})
	state := gitRepoIn(t, y)
	before := state()
	r = y.RunStream("go", "--worktree", "quiet")
	mustSucceed(t, r)
	if after := state(); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s", before, after)
	}
	if !strings.Contains(r.Stderr, "removed it and branch worktree-quiet") {
		t.Fatalf("stderr: %s", r.Stderr)
	}

	// Not a repository; a bad name.
	z := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("x")}})
	if r := z.RunStream("go", "--worktree", "w"); r.Code == 0 || !strings.Contains(r.Stderr, "git init") {
		t.Fatalf("outside a repository: %d %s", r.Code, r.Stderr)
	}
	if r := z.RunStream("go", "--worktree", "../up"); r.Code == 0 || !strings.Contains(r.Stderr, "--worktree") {
		t.Fatalf("bad name: %d %s", r.Code, r.Stderr)
	}
}

// `tandem -p --worktree NAME` (Claude Code's flag, through the CLI
// protocol) works in the worktree and keeps it when changed.
func TestE2EPrintWorktree(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "c.txt", "content": "sea\n"})),
		scripted.TextStep("done"),
	}})
	gitRepoIn(t, x)
	r := x.Run("-p", "go", "-w", "cli", "--output-format", "json", "--model", "claude-sonnet-5-5", "--permission-mode", "acceptEdits")
	wt := filepath.Join(x.Work, ".claude", "worktrees", "cli")
	if b, err := os.ReadFile(filepath.Join(wt, "c.txt")); err != nil || string(b) != "sea\n" {
		t.Fatalf("worktree file: %q %v\n%s\n%s", b, err, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(x.Work, "c.txt")); err == nil {
		t.Fatal("wrote in the main checkout")
	}
	if !strings.Contains(r.Stderr, "kept at "+wt) {
		t.Fatalf("stderr: %s", r.Stderr)
	}
}

// A sub-agent's worktree kept because it changed, and unchanged again by
// the session's end (the parent removed the file), is removed when the
// session ends: a session leaves no empty worktree or branch behind.
func TestE2ESessionEndRemovesWorktreesUnchangedSince(t *testing.T) {
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "make a file", "prompt": "TASK-ISO: make a file", "isolation": "worktree"})),
			scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm .claude/worktrees/agent-*/made-by-agent.txt"})),
			scripted.TextStep("after"),
		},
		Threads: []scripted.Thread{{Match: "TASK-ISO", Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "made-by-agent.txt", "content": "hello\n"})),
			scripted.TextStep("made it"),
		}}},
	})
	state := gitRepoIn(t, x)
	before := state()
	r := x.RunStream("go", "--permission-mode", "trust")
	mustSucceed(t, r)
	if res := agentResult(t, r, "a1"); !strings.Contains(res.Output, "worktree-agent-") {
		t.Fatalf("the agent's worktree was not kept at first: %s", res.Output)
	}
	if after := state(); after != before {
		t.Fatalf("leaked:\nbefore %s\nafter %s\n%s", before, after, r.Stderr)
	}
}

// orphanWorktree makes the marker of a worktree tandem made name a process
// that is gone: what a tandem killed before its end (SIGKILL) leaves.
func orphanWorktree(t *testing.T, repo, name string) {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(repo, ".git", "worktrees", name, "tandem-owner")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("no owner marker: %v", err)
	}
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	o["pid"] = dead.ProcessState.Pid()
	b, _ = json.Marshal(o)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The next session in the repository finishes the worktrees a killed
// tandem left: the unchanged one is removed with its branch, the changed
// one is kept and said once, naming its folder and branch.
func TestE2ENextSessionSweepsWorktreesAKilledTandemLeft(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi"), scripted.TextStep("hi again")}})
	gitRepoIn(t, x)
	ctx := context.Background()
	quiet, err := worktree.Create(ctx, x.Work, "agent-quiet")
	if err != nil {
		t.Fatal(err)
	}
	busy, err := worktree.Create(ctx, x.Work, "agent-busy")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(busy.Path, "work.txt"), []byte("w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	orphanWorktree(t, x.Work, "agent-quiet")
	orphanWorktree(t, x.Work, "agent-busy")

	r := x.RunStream("go")
	mustSucceed(t, r)
	if _, err := os.Stat(quiet.Path); err == nil {
		t.Errorf("the unchanged worktree %s was not removed", quiet.Path)
	}
	if br := gitIn(t, x.Work, "branch", "--list", "worktree-agent-*"); strings.Contains(br, "agent-quiet") || !strings.Contains(br, "agent-busy") {
		t.Errorf("branches left: %s", br)
	}
	if b, err := os.ReadFile(filepath.Join(busy.Path, "work.txt")); err != nil || string(b) != "w\n" {
		t.Fatalf("the changed worktree lost its work: %q %v", b, err)
	}
	said := 0
	for _, e := range eventsOf(r, event.Status) {
		if e.Meta["notice"] == "worktree" && e.Meta["path"] == busy.Path && e.Meta["branch"] == "worktree-agent-busy" && strings.Contains(e.Message, busy.Path) {
			said++
		}
	}
	if said != 1 {
		t.Fatalf("the kept worktree was said %d times, want once:\n%s", said, r.Stdout)
	}
	r = x.RunStream("go")
	mustSucceed(t, r)
	for _, e := range eventsOf(r, event.Status) {
		if e.Meta["notice"] == "worktree" {
			t.Fatalf("said again in the next session: %s", e.Message)
		}
	}
	if _, err := os.Stat(filepath.Join(busy.Path, "work.txt")); err != nil {
		t.Fatalf("the kept worktree went: %v", err)
	}
}

// With the sandbox on, a `--worktree` session commits as a session in the
// main checkout does: the repository's git folder, outside the worktree,
// is writable in its sandbox (its hooks and config are not).
func TestE2ESandboxedWorktreeSessionCommits(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("c", "Bash", map[string]any{"command": "echo bee > b.txt && git add b.txt && " +
			"GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t git commit -q -m sandboxed && git log --format=%s -1"})),
		scripted.TextStep("done"),
	}})
	gitRepoIn(t, x)
	r := x.RunStream("go", "--worktree", "feat", "--permission-mode", "trust", "--sandbox")
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	mustSucceed(t, r)
	if got := gitIn(t, x.Work, "log", "--format=%s", "-1", "worktree-feat"); got != "sandboxed" {
		var out string
		for _, e := range eventsOf(r, event.ToolResult) {
			out += e.Output + "\n"
		}
		t.Fatalf("branch worktree-feat is at %q, want the sandboxed commit; the command said:\n%s", got, out)
	}
}
