package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
)

// BackgroundTasks is the session's background tasks (shells started with
// run_in_background, background sub-agents): /tasks lists them and stops
// one.
type BackgroundTasks interface {
	Tasks() []event.Task
	// StopTask stops a running task and waits for its end.
	StopTask(id string) (event.Task, error)
}

// cmdTasks is /tasks (the list) and /tasks stop ID.
func (m *model) cmdTasks(args string) tea.Cmd {
	bt := m.be.Features().Tasks
	if bt == nil {
		m.tr.notice(levelWarn, "This session cannot list background tasks.")
		return nil
	}
	sub, id, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch sub {
	case "":
		m.tr.notice(levelInfo, taskList(bt.Tasks(), time.Now()))
		return nil
	case "stop":
		id = strings.TrimSpace(id)
		if id == "" {
			m.tr.notice(levelWarn, "Use /tasks stop ID (the ids /tasks lists, such as agent_1 or bash_2).")
			return nil
		}
		return m.action(func(context.Context) (string, error) {
			t, err := bt.StopTask(id)
			if err != nil {
				return "", fmt.Errorf("/tasks stop %s: %w", id, err)
			}
			return fmt.Sprintf("Stopped %s (%s).", t.ID, sanitize(t.Description, false)), nil
		})
	}
	m.tr.notice(levelWarn, "Use /tasks to list background tasks, /tasks stop ID to stop one.")
	return nil
}

// taskList is /tasks' text: one line per task, running ones first.
func taskList(ts []event.Task, now time.Time) string {
	if len(ts) == 0 {
		return "No background tasks. (The model starts them with run_in_background on Bash or Agent.)"
	}
	var running, ended []string
	for _, t := range ts {
		line := fmt.Sprintf("  %s  %s  %s — %s", t.ID, t.Kind, t.Status, t.Description)
		if t.Status == event.TaskRunning {
			line += fmt.Sprintf(" (%s)", now.Sub(t.Started).Round(time.Second))
			if !t.Stoppable {
				line += " [cannot be stopped from tandem]"
			}
			running = append(running, line)
			continue
		}
		if t.Summary != "" {
			line += ": " + t.Summary
		}
		ended = append(ended, line)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Background tasks (%d running):", len(running))
	for _, l := range append(running, ended...) {
		b.WriteString("\n" + l)
	}
	if len(running) > 0 {
		b.WriteString("\nStop one with /tasks stop ID.")
	}
	return b.String()
}

// applyTask shows a background task's start and end in the transcript.
// An end while no turn runs says when the model hears of it: with the
// next prompt (docs/tui.md).
func (m *model) applyTask(t *event.Task) {
	if t == nil {
		return
	}
	what := "Background " + t.Kind + " " + t.ID + " (" + t.Description + ")"
	switch t.Status {
	case event.TaskRunning:
		m.tr.notice(levelInfo, what+" started; /tasks lists it.")
	case event.TaskCompleted:
		m.tr.notice(levelInfo, what+" finished"+suffix(": ", t.Summary)+m.taskHeard())
	default:
		m.tr.notice(levelWarn, what+" "+t.Status+suffix(": ", t.Summary)+m.taskHeard())
	}
}

// taskHeard says when the model reads a task's end.
func (m *model) taskHeard() string {
	if m.busy {
		return " (the model reads it with this turn's next step)"
	}
	return " (the model reads it with your next message)"
}

// cleanTask strips terminal controls from a task's text (its description
// and summary come from the model).
func cleanTask(t event.Task) event.Task {
	t.Description = sanitize(t.Description, false)
	t.Summary = sanitize(t.Summary, false)
	return t
}
