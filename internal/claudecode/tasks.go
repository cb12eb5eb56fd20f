package claudecode

import (
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// The Claude Code CLI runs its own background tasks (Bash and Agent with
// run_in_background) and reports them as system/task_started and
// system/task_notification. tandem lists them with the session's other
// tasks (/tasks, the API, background_task events) but cannot stop them
// (Stoppable false): the CLI takes no stop request from its host. The CLI
// process lives for one turn, so a task still running when the turn's
// result arrives ends with it; tandem says so, to the front ends and, with
// the next prompt, to the model, rather than letting it vanish.

// cliTaskEndedWithTurn is the summary of a CLI task the turn's end stopped.
const cliTaskEndedWithTurn = "stopped: the Claude Code CLI's process ends with the turn"

// cliTaskID is the CLI's task id under tandem's task id rules.
func cliTaskID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r < 128 && (r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
		if b.Len() == 64 {
			break
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "claude_" + b.String()
}

// noteTask records a task message in the session's task table; it reports
// whether m was one.
func (l *loop) noteTask(m Msg) bool {
	if m.Type != "system" || (m.Subtype != "task_started" && m.Subtype != "task_notification") {
		return false
	}
	env := l.t.d.Env
	id := cliTaskID(m.TaskID)
	if env == nil || env.State == nil || id == "" {
		return true
	}
	if l.tasks == nil {
		l.tasks = map[string]*tool.TaskHandle{}
	}
	switch m.Subtype {
	case "task_started":
		if m.IsBackgrounded != nil && !*m.IsBackgrounded {
			return true // a foreground sub-agent: its card shows it
		}
		kind := event.TaskAgent
		if strings.Contains(m.TaskType, "bash") || strings.Contains(m.TaskType, "shell") {
			kind = event.TaskShell
		}
		h, err := tool.StartTask(env, event.Task{ID: id, Kind: kind, Description: m.TaskDesc, ToolUseID: m.TaskToolUseID}, nil)
		if err == nil {
			l.tasks[id] = h
		}
	case "task_notification":
		h := l.tasks[id]
		if h == nil {
			return true
		}
		status := event.TaskCompleted
		switch m.Status {
		case "failed":
			status = event.TaskFailed
		case "killed", "stopped":
			status = event.TaskStopped
		}
		h.End(status, tool.FirstLine(m.TaskSummary, 120))
		delete(l.tasks, id)
	}
	return true
}

// endTasks ends the CLI's tasks still running when its process goes, and
// tells the model with the next prompt.
func (l *loop) endTasks() {
	for id, h := range l.tasks {
		h.End(event.TaskStopped, cliTaskEndedWithTurn)
		tool.Notify(l.t.d.Env, "Background task "+id+" ("+h.Info().Description+") was "+cliTaskEndedWithTurn+"; it did not finish.")
		delete(l.tasks, id)
	}
}

// withNotices adds what background work queued for the model (a task the
// last turn's end stopped, or one of a native turn's before a switch of
// runtime) to the prompt, as the native loop adds it to its next message.
func withNotices(prompt string, env *tool.Env) string {
	ns := tool.TakeNotices(env)
	if len(ns) == 0 {
		return prompt
	}
	return prompt + "\n\n<system-reminder>\n" + strings.Join(ns, "\n") + "\n</system-reminder>"
}
