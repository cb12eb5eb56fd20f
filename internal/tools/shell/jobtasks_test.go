package shell

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// A background shell is one of the session's tasks: listed, stoppable by
// the user, its end said to the model and the front ends.
func TestBackgroundJobIsATask(t *testing.T) {
	env, _ := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": "sleep 60", "run_in_background": true, "description": "wait a minute"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	ts := tool.Tasks(env)
	if len(ts) != 1 || ts[0].ID != "bash_1" || ts[0].Kind != event.TaskShell || ts[0].Status != event.TaskRunning ||
		ts[0].Description != "wait a minute" || !ts[0].Stoppable {
		t.Fatalf("tasks: %+v", ts)
	}
	if _, err := tool.StopTask(env, "bash_1"); err != nil {
		t.Fatal(err)
	}
	ts = tool.Tasks(env)
	if ts[0].Status != event.TaskStopped || ts[0].Summary != tool.StoppedByUser {
		t.Errorf("after stop: %+v", ts[0])
	}
	var notices []string
	waitFor(t, "end notice", func() bool { notices = append(notices, tool.TakeNotices(env)...); return len(notices) > 0 })
	if !strings.Contains(notices[0], "bash_1") || !strings.Contains(notices[0], "was stopped by the user") {
		t.Errorf("notice: %q", notices)
	}
}
