package agenttools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// heldRuntime is a child runtime that answers only when released, or
// ends as interrupted when its context is cancelled.
type heldRuntime struct {
	release chan struct{}
	started chan struct{}
}

func (heldRuntime) Name() string { return "held" }

func (h heldRuntime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
		return event.Event{Type: event.Result, Subtype: event.SubtypeSuccess, Result: "REPORT: " + in.Prompt}, nil
	case <-ctx.Done():
		return event.Event{Type: event.Result, Subtype: event.SubtypeInterrupted, IsError: true, Error: "interrupted"}, nil
	}
}

type memChildren struct{ rec *turntest.Recorder }

func (c memChildren) NewChild(ctx context.Context, _, toolUseID, _, model, title string, _ func() int64) (string, turn.Recorder, error) {
	return c.rec.Child(ctx, toolUseID, title, model)
}

// eventLog collects the events a session's env emits.
type eventLog struct {
	mu  sync.Mutex
	evs []event.Event
}

func (l *eventLog) emit(e event.Event) { l.mu.Lock(); l.evs = append(l.evs, e); l.mu.Unlock() }
func (l *eventLog) tasks() []event.Task {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []event.Task
	for _, e := range l.evs {
		if e.Type == event.BackgroundTask {
			out = append(out, *e.Task)
		}
	}
	return out
}

func backgroundAgent(t *testing.T) (*Agent, *tool.Env, heldRuntime, *eventLog) {
	t.Helper()
	rt := heldRuntime{release: make(chan struct{}), started: make(chan struct{}, 4)}
	env := tool.NewEnv("ses_parent", t.TempDir(), nil, t.TempDir())
	log := &eventLog{}
	env.Emit = log.emit
	runner := &subagent.Runner{Runtime: rt, Children: memChildren{&turntest.Recorder{}}, Agents: subagent.Load(nil, skills.Place{}, skills.Place{})}
	a := &Agent{Runner: runner, Parent: func(tool.Call) subagent.Parent {
		return subagent.Parent{SessionID: "ses_parent", Cwd: env.WorkDir, Checker: permission.AllowAll{}, Tools: tool.NewRegistry(), Emit: env.Emit}
	}}
	return a, env, rt, log
}

// runAtOnce runs the call and fails when it does not return while its
// child is still held (a background call must not wait for the child).
func runAtOnce(t *testing.T, a *Agent, env *tool.Env, input any) tool.Result {
	t.Helper()
	got := make(chan tool.Result, 1)
	go func() { got <- run(t, a, env, input) }()
	select {
	case res := <-got:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("the Agent call waited for its background child")
		return tool.Result{}
	}
}

// waitEnded waits for the task to end (a real goroutine; 10 s deadline).
func waitEnded(t *testing.T, env *tool.Env, id string) event.Task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, tk := range tool.Tasks(env) {
			if tk.ID == id && tk.Status != event.TaskRunning {
				return tk
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("task %s did not end: %+v", id, tool.Tasks(env))
	return event.Task{}
}

func TestBackgroundAgentReportsWhenDone(t *testing.T) {
	a, env, rt, log := backgroundAgent(t)
	res := runAtOnce(t, a, env, map[string]any{"description": "find users", "prompt": "look", "run_in_background": true})
	if res.IsError || !strings.Contains(res.Content, "agent_1") || res.Meta["task_id"] != "agent_1" {
		t.Fatalf("the call should return at once with the task id: %+v", res)
	}
	<-rt.started
	ts := tool.Tasks(env)
	if len(ts) != 1 || ts[0].Status != event.TaskRunning || ts[0].Kind != event.TaskAgent || ts[0].ToolUseID != "toolu_1" || !ts[0].Stoppable {
		t.Fatalf("tasks while running: %+v", ts)
	}
	if n := tool.TakeNotices(env); len(n) != 0 {
		t.Fatalf("notice before the end: %q", n)
	}
	close(rt.release)
	done := waitEnded(t, env, "agent_1")
	if done.Status != event.TaskCompleted || done.Summary != "REPORT: look" || done.SessionID == "" {
		t.Errorf("ended task: %+v", done)
	}
	n := tool.TakeNotices(env)
	if len(n) != 1 || !strings.Contains(n[0], "agent_1") || !strings.Contains(n[0], "REPORT: look") {
		t.Errorf("the model must be told the report: %q", n)
	}
	if evs := log.tasks(); len(evs) != 2 || evs[0].Status != event.TaskRunning || evs[1].Status != event.TaskCompleted {
		t.Errorf("background_task events: %+v", evs)
	}
}

func TestBackgroundAgentStoppedByUser(t *testing.T) {
	a, env, rt, _ := backgroundAgent(t)
	runAtOnce(t, a, env, map[string]any{"description": "slow", "prompt": "p", "run_in_background": true})
	<-rt.started
	if _, err := tool.StopTask(env, "agent_1"); err != nil {
		t.Fatal(err)
	}
	ts := tool.Tasks(env)
	if ts[0].Status != event.TaskStopped || ts[0].Summary != tool.StoppedByUser {
		t.Errorf("after stop: %+v", ts[0])
	}
	n := tool.TakeNotices(env)
	if len(n) != 1 || !strings.Contains(n[0], "was stopped by the user") {
		t.Errorf("the stop must be reported to the model: %q", n)
	}
	if _, err := tool.StopTask(env, "agent_1"); err == nil || !strings.Contains(err.Error(), "already ended") {
		t.Errorf("stopping twice: %v", err)
	}
}

func TestBackgroundAgentStoppedWithTheSession(t *testing.T) {
	a, env, rt, _ := backgroundAgent(t)
	runAtOnce(t, a, env, map[string]any{"description": "slow", "prompt": "p", "run_in_background": true})
	<-rt.started
	env.State.Close() // the session ends: the task stops and says so
	ts := tool.Tasks(env)
	if ts[0].Status != event.TaskStopped || ts[0].Summary != tool.StoppedBySessionEnd {
		t.Errorf("after the session's end: %+v", ts[0])
	}
	if n := tool.TakeNotices(env); len(n) != 1 || !strings.Contains(n[0], "stopped because the session ended") {
		t.Errorf("the end must be reported: %q", n)
	}
	if res := run(t, a, env, map[string]any{"description": "late", "prompt": "p", "run_in_background": true}); !res.IsError {
		t.Errorf("a closing session must not start a background agent: %+v", res)
	}
}
