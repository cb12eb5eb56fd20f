package tool

import (
	"errors"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

func TestValidTaskID(t *testing.T) {
	for _, id := range []string{"bash_1", "agent_12", "claude_b7x-2"} {
		if err := ValidTaskID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "1", "bash_", "../x", "bash_1/..", "BASH_1", "bash 1", "agent_1\n"} {
		if err := ValidTaskID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestStopTask(t *testing.T) {
	env := NewEnv("s", t.TempDir(), nil, t.TempDir())
	stopped := 0
	var h *TaskHandle
	h, err := StartTask(env, event.Task{ID: NewTaskID(env, "agent"), Kind: event.TaskAgent}, func() {
		stopped++
		go h.End(event.TaskFailed, "interrupted")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StopTask(env, "agent_9"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := StopTask(env, "../agent_1"); err == nil || errors.Is(err, ErrUnknownTask) {
		t.Errorf("bad id must be refused as bad, not looked up: %v", err)
	}
	if _, err := StopTask(env, "agent_1"); err != nil {
		t.Fatal(err)
	}
	got := Tasks(env)[0]
	if stopped != 1 || got.Status != event.TaskStopped || got.Summary != StoppedByUser || got.Ended.IsZero() {
		t.Errorf("stopped task: %+v (stop called %d times)", got, stopped)
	}
	if _, err := StopTask(env, "agent_1"); !errors.Is(err, ErrTaskEnded) {
		t.Errorf("stopping an ended task: %v", err)
	}
	listed, _ := StartTask(env, event.Task{ID: "claude_x1", Kind: event.TaskAgent}, nil)
	if _, err := StopTask(env, "claude_x1"); !errors.Is(err, ErrNotStoppable) {
		t.Errorf("a task without stop: %v", err)
	}
	listed.End(event.TaskCompleted, "")
	env.State.Close()
	if _, err := StartTask(env, event.Task{ID: "agent_5"}, func() {}); !errors.Is(err, ErrSessionClosing) {
		t.Errorf("start after close: %v", err)
	}
}
