package agenttools

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
)

// A background sub-agent (run_in_background: true): the call returns at
// once with the task's id and the parent goes on; the child runs on,
// outliving the turn, until it finishes, the user stops it (/tasks, the
// API) or the session ends. Its end always reaches the model: its report
// is queued with tool.Notify, the path background shells use, and goes
// with the next message the session records (the next step's tool
// results, or the user's next prompt when the session is idle); a
// session that closes first keeps the notice for its next run.

// canBackground: only the session's own agent starts background agents;
// a sub-agent's would end with it (its tool state closes when it
// returns), so it runs them in the foreground.
func canBackground(call tool.Call, p subagent.Parent) bool {
	return call.Env != nil && call.Env.State != nil && p.Depth == 0
}

// summaryLen bounds a task's one-line summary.
const summaryLen = 120

// background starts t in the background for call and returns the call's
// result: the task's id and what will happen.
func (a *Agent) background(ctx context.Context, call tool.Call, p subagent.Parent, t subagent.Task) tool.Result {
	env := call.Env
	id := tool.NewTaskID(env, "agent")
	// The child outlives the turn (WithoutCancel), keeping the turn's
	// values: its budget goes on counting what the child spends.
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	task, err := tool.StartTask(env, event.Task{ID: id, Kind: event.TaskAgent,
		Description: firstNonEmpty(t.Description, t.Agent.Name), ToolUseID: call.ID}, cancel)
	if err != nil {
		cancel()
		return tool.ErrorResult("Agent: " + err.Error())
	}
	go func() {
		defer cancel()
		res, err := runTask(bg, a.Runner, p, t)
		if err != nil {
			res = tool.ErrorResult(err.Error())
		}
		if sid, ok := res.Meta["agent_session_id"].(string); ok {
			task.SetSessionID(sid)
		}
		status := event.TaskCompleted
		if res.IsError {
			status = event.TaskFailed
		}
		reason := task.StopReason()
		tool.Notify(env, backgroundNotice(id, t, res, reason))
		task.End(status, tool.FirstLine(res.Content, summaryLen))
	}()
	return tool.Result{
		Content: fmt.Sprintf("The %s agent is running in the background as task %s. Its report will reach you in a later message when it finishes; "+
			"do not wait or poll for it: go on with other work, or end your turn if there is nothing else to do. The user can stop it with /tasks.", t.Agent.Name, id),
		Meta: map[string]any{"task_id": id, "background": true, "agent_type": t.Agent.Name},
	}
}

// backgroundNotice is what the model reads when a background agent ends.
func backgroundNotice(id string, t subagent.Task, res tool.Result, stopReason string) string {
	head := fmt.Sprintf("Background agent %s (%s: %q)", id, t.Agent.Name, t.Description)
	switch {
	case stopReason != "":
		return fmt.Sprintf("%s was %s before it finished. %s", head, stopReason, res.Content)
	case res.IsError:
		return fmt.Sprintf("%s failed. %s", head, res.Content)
	}
	return fmt.Sprintf("%s finished. Its report:\n%s", head, res.Content)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
