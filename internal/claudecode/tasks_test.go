package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// The CLI's own background tasks, as its stream reports them, are listed
// with the session's tasks; one still running when the CLI's process ends
// with the turn is said to have stopped, to the front ends and the model.
func TestCLITasksListed(t *testing.T) {
	env := tool.NewEnv("s", t.TempDir(), nil, t.TempDir())
	l := &loop{t: &turnRun{d: turn.Deps{Env: env}}}
	for _, line := range []string{
		`{"type":"system","subtype":"task_started","task_id":"b7f3k2","tool_use_id":"toolu_1","description":"npm test","task_type":"local_bash"}`,
		`{"type":"system","subtype":"task_started","task_id":"a9x1","tool_use_id":"toolu_2","description":"survey","task_type":"local_agent","is_backgrounded":true}`,
		`{"type":"system","subtype":"task_started","task_id":"fg1","tool_use_id":"toolu_3","description":"foreground","task_type":"local_agent","is_backgrounded":false}`,
		`{"type":"system","subtype":"task_notification","task_id":"b7f3k2","status":"completed","summary":"tests passed\nmore"}`,
	} {
		var m Msg
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if !l.noteTask(m) {
			t.Fatalf("not taken as a task message: %s", line)
		}
	}
	ts := tool.Tasks(env)
	if len(ts) != 2 || ts[0].ID != "claude_b7f3k2" || ts[0].Kind != event.TaskShell || ts[0].Status != event.TaskCompleted || ts[0].Summary != "tests passed" ||
		ts[1].ID != "claude_a9x1" || ts[1].Kind != event.TaskAgent || ts[1].Status != event.TaskRunning || ts[1].Stoppable {
		t.Fatalf("tasks: %+v", ts)
	}
	if _, err := tool.StopTask(env, "claude_a9x1"); err == nil {
		t.Error("tandem cannot stop the CLI's task, and must say so")
	}
	l.endTasks()
	if ts = tool.Tasks(env); ts[1].Status != event.TaskStopped || ts[1].Summary != cliTaskEndedWithTurn {
		t.Errorf("after the turn: %+v", ts[1])
	}
	if n := tool.TakeNotices(env); len(n) != 1 || !strings.Contains(n[0], "claude_a9x1") {
		t.Errorf("notices: %q", n)
	}
	if cliTaskID("../../x") != "claude_x" || cliTaskID("///") != "" {
		t.Errorf("ids: %q %q", cliTaskID("../../x"), cliTaskID("///"))
	}
}

func TestNoticesGoWithThePrompt(t *testing.T) {
	env := tool.NewEnv("s", t.TempDir(), nil, t.TempDir())
	if got := withNotices("hi", env); got != "hi" {
		t.Errorf("no notices: %q", got)
	}
	tool.Notify(env, "Background task claude_x was stopped")
	if got := withNotices("hi", env); !strings.HasPrefix(got, "hi\n\n<system-reminder>") || !strings.Contains(got, "claude_x was stopped") {
		t.Errorf("with a notice: %q", got)
	}
	if got := withNotices("hi", nil); got != "hi" {
		t.Errorf("no env: %q", got)
	}
}
