package subagent

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// seenRuntime records what the child's turn was given.
type seenRuntime struct {
	in  turn.Input
	env *tool.Env
	chk permission.Checker
}

func (s *seenRuntime) Name() string { return "seen" }
func (s *seenRuntime) RunTurn(_ context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	s.in, s.env, s.chk = in, d.Env, d.Checker
	return event.Event{Type: event.Result, Result: "done"}, nil
}

type memChildren struct{}

func (memChildren) NewChild(context.Context, string, string, string, string, string, func() int64) (string, turn.Recorder, error) {
	return "ses_child", &turntest.Recorder{}, nil
}

type fakeConfiner struct{ tool.Confiner }

func testParent() Parent {
	return Parent{SessionID: "ses_p", Cwd: "/work", Roots: []string{"/work", "/extra"}, Tools: tool.NewRegistry(),
		Checker: permission.NewEngine(permission.EngineOptions{WorkDir: "/work"}), Emit: func(event.Event) {}, Sandbox: fakeConfiner{}}
}

// A sub-agent's commands run in its parent's OS sandbox: the engine
// auto-allows commands because they are sandboxed, so a child running
// them outside it would be a way out.
func TestChildRunsInTheParentsSandbox(t *testing.T) {
	rt := &seenRuntime{}
	r := &Runner{Runtime: rt, Children: memChildren{}, Agents: Load(nil)}
	p := testParent()
	if _, err := r.Run(context.Background(), p, Task{Agent: Builtins()[0], Prompt: "x"}); err != nil {
		t.Fatal(err)
	}
	if rt.env == nil || rt.env.Sandbox != p.Sandbox {
		t.Fatalf("child env sandbox = %v, want the parent's", rt.env)
	}
}

// An isolated run (the call's isolation or the agent's) runs from the
// Parent the Isolator returns, and its outcome carries what the
// isolator's finish says; without an Isolator it is refused, and an
// unknown isolation is refused before anything is made.
func TestIsolatedRunUsesTheIsolatorsWorkspace(t *testing.T) {
	rt := &seenRuntime{}
	r := &Runner{Runtime: rt, Children: memChildren{}, Agents: Load(nil)}
	p := testParent()
	if _, err := r.Run(context.Background(), p, Task{Agent: Builtins()[0], Prompt: "x", Isolation: IsolationWorktree}); err == nil ||
		!strings.Contains(err.Error(), "not available") {
		t.Fatalf("no isolator: %v", err)
	}
	finished := 0
	r.Isolate = func(_ context.Context, p Parent, _ Task) (Parent, func() string, error) {
		p.Cwd, p.Roots = "/work/.claude/worktrees/agent-1", []string{"/work/.claude/worktrees/agent-1"}
		return p, func() string { finished++; return "kept at X" }, nil
	}
	def := *Builtins()[0]
	def.Isolation = IsolationWorktree
	out, err := r.Run(context.Background(), p, Task{Agent: &def, Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if rt.in.Cwd != "/work/.claude/worktrees/agent-1" || rt.env.WorkDir != rt.in.Cwd || rt.env.Roots[0] != rt.in.Cwd {
		t.Fatalf("child ran in %q (env %q %v)", rt.in.Cwd, rt.env.WorkDir, rt.env.Roots)
	}
	if finished != 1 || out.Worktree != "kept at X" {
		t.Fatalf("finish ran %d times, outcome %q", finished, out.Worktree)
	}
	if err := CheckIsolation("remote"); err == nil {
		t.Fatal("remote accepted")
	}
	if _, err := r.Run(context.Background(), p, Task{Agent: Builtins()[0], Prompt: "x", Isolation: "sideways"}); err == nil || finished != 1 {
		t.Fatalf("unknown isolation: %v (finish ran %d)", err, finished)
	}
}

// An agent file's isolation field is read; a value tandem cannot give is
// a warning and the field is left out.
func TestAgentFileIsolation(t *testing.T) {
	d, _, err := parseFile("a.md", "project", []byte("---\nname: a\ndescription: A.\nisolation: worktree\n---\nP\n"))
	if err != nil || d.Isolation != IsolationWorktree {
		t.Fatalf("%+v %v", d, err)
	}
	d, warns, err := parseFile("b.md", "project", []byte("---\nname: b\ndescription: B.\nisolation: remote\n---\nP\n"))
	if err != nil || d.Isolation != "" || len(warns) == 0 {
		t.Fatalf("%+v %v %v", d, warns, err)
	}
	if _, err := ParseConfig([]byte(`{"x":{"description":"d","prompt":"p","isolation":"elsewhere"}}`), "config.json"); err == nil ||
		!strings.Contains(err.Error(), "agents.x.isolation") {
		t.Fatalf("config: %v", err)
	}
}
