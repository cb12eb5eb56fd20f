package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A scripted model finds, reads, fixes and tests a small buggy program with
// the built-in tools, through the real binary.
func TestFeatureToolsFindReadFixTest(t *testing.T) {
	t.Parallel()
	needProgram(t, "python3")
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("todo1", "TodoWrite", map[string]any{"todos": []map[string]any{
			{"content": "Find the bug", "status": "in_progress", "activeForm": "Finding the bug"},
			{"content": "Fix and test", "status": "pending", "activeForm": "Fixing and testing"},
		}})).WithText("Planning."),
		scripted.ToolStep(scripted.CallID("glob1", "Glob", map[string]any{"pattern": "**/*.py"})),
		scripted.ToolStep(scripted.CallID("grep1", "Grep", map[string]any{"pattern": "def add", "output_mode": "content"})),
		scripted.ToolStep(scripted.CallID("read1", "Read", map[string]any{"file_path": "src/calc.py"})),
		scripted.ToolStep(scripted.CallID("edit1", "Edit", map[string]any{"file_path": "src/calc.py", "old_string": "return a - b", "new_string": "return a + b"})),
		scripted.ToolStep(scripted.CallID("bash1", "Bash", map[string]any{"command": "python3 src/test_calc.py"})),
		scripted.TextStep("Fixed: add subtracted instead of adding; the test passes."),
	}})
	x.WriteFile("src/calc.py", "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n")
	x.WriteFile("src/test_calc.py", "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\nfrom calc import add, mul\nassert add(2, 3) == 5, 'add(2, 3) = %r' % add(2, 3)\nassert mul(2, 3) == 6\nprint('all tests passed')\n")
	x.WriteFile("README.md", "calc\n")

	// Normal mode: every step is a read, a workspace edit or a test command
	// allowed by a flag, so nothing needs a terminal.
	r := x.RunStream("fix the failing test", "--allowedTools", "Bash(python3 src/test_calc.py)")
	mustSucceed(t, r)

	if got := x.ReadFile("src/calc.py"); !strings.Contains(got, "return a + b") || strings.Contains(got, "a - b") {
		t.Errorf("calc.py not fixed:\n%s", got)
	}
	results := toolResults(r)
	for _, id := range []string{"todo1", "glob1", "grep1", "read1", "edit1", "bash1"} {
		if res, ok := results[id]; !ok || res.IsError {
			t.Errorf("%s: result %+v (present %v)", id, res, ok)
		}
	}
	if out := results["glob1"].Output; !strings.Contains(out, "calc.py") || !strings.Contains(out, "test_calc.py") || strings.Contains(out, "README") {
		t.Errorf("Glob output:\n%s", out)
	}
	if out := results["grep1"].Output; !strings.Contains(out, "calc.py:1:def add(a, b):") {
		t.Errorf("Grep output:\n%s", out)
	}
	if out := results["read1"].Output; !strings.Contains(out, "     2\t    return a - b") {
		t.Errorf("Read output:\n%s", out)
	}
	if d := results["edit1"].Diff; !strings.Contains(d, "-    return a - b") || !strings.Contains(d, "+    return a + b") {
		t.Errorf("Edit diff:\n%s", d)
	}
	bash := results["bash1"]
	if !strings.Contains(bash.Output, "all tests passed") || metaInt(bash.Meta, "exit_code") != 0 || bash.Meta["exit_code"] == nil {
		t.Errorf("Bash result: %q meta %v", bash.Output, bash.Meta)
	}
	var todos []event.Todo
	for _, e := range r.Events {
		if e.Type == event.TaskUpdate {
			todos = e.Todos
		}
	}
	if len(todos) != 2 || todos[0].Status != "in_progress" || todos[1].Content != "Fix and test" {
		t.Errorf("task_update todos: %+v", todos)
	}
	res := r.Result()
	if res.NumTurns != 7 || !strings.HasPrefix(res.Result, "Fixed:") {
		t.Errorf("result: %+v", res)
	}

	// The session is stored: listed, and its conversation shows the work.
	list := x.Run("sessions", "list", "--json")
	if !strings.Contains(list.Stdout, res.SessionID) {
		t.Errorf("sessions list lacks %s:\n%s%s", res.SessionID, list.Stdout, list.Stderr)
	}
	show := x.Run("sessions", "show", res.SessionID)
	for _, want := range []string{"fix the failing test", "Edit", "all tests passed", "Fixed:"} {
		if !strings.Contains(show.Stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.Stdout)
		}
	}
}
