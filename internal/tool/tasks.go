package tool

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// The session's background tasks (shells started with run_in_background,
// background sub-agents): one table per session in its State, which every
// front end lists and stops through (the Live's Tasks and StopTask). The
// tool that owns a task starts it with StartTask and ends it with
// TaskHandle.End, which tells the front ends (a background_task event);
// the model learns of the end from the owner's Notify. A task ends only
// when it finishes, the user stops it or the session ends: the table
// stops what is still running when the session closes, and that end is
// reported like any other.

// ErrUnknownTask is StopTask's answer for an id the session never had.
var ErrUnknownTask = errors.New("no such background task")

// ErrTaskEnded is StopTask's answer for a task that had already ended.
var ErrTaskEnded = errors.New("the background task has already ended")

// ErrNotStoppable is StopTask's answer for a task tandem lists but cannot
// stop (the Claude Code CLI's own).
var ErrNotStoppable = errors.New("tandem cannot stop this task")

// taskIDPattern is every task id: a kind prefix and a number or the
// CLI's own id.
var taskIDPattern = regexp.MustCompile(`^[a-z]{1,16}_[A-Za-z0-9-]{1,64}$`)

// ValidTaskID checks an id given from outside (a URL, a slash command)
// before any lookup.
func ValidTaskID(id string) error {
	if !taskIDPattern.MatchString(id) {
		return fmt.Errorf("bad task id %q: a task id is a kind and a number such as bash_1 or agent_2 (list them with /tasks or GET /api/sessions/{id}/tasks)", id)
	}
	return nil
}

const tasksKey = "tool.tasks"

type taskTable struct {
	mu         sync.Mutex
	tasks      map[string]*TaskHandle
	order      []string
	next       map[string]int
	registered bool
	closed     bool
}

// TaskHandle is one task in the table, held by the tool that owns it.
type TaskHandle struct {
	env  *Env
	stop func()
	done chan struct{}

	mu       sync.Mutex
	info     event.Task
	stopping bool
	reason   string
}

func tasksOf(env *Env) *taskTable {
	t := env.State.Load(tasksKey, func() any { return &taskTable{tasks: map[string]*TaskHandle{}, next: map[string]int{}} }).(*taskTable)
	t.mu.Lock()
	register := !t.registered
	t.registered = true
	t.mu.Unlock()
	if register {
		env.State.OnClose(t.closeAll)
	}
	return t
}

// NewTaskID returns the next id for a kind's prefix ("bash" -> bash_1,
// bash_2, ...).
func NewTaskID(env *Env, prefix string) string {
	t := tasksOf(env)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next[prefix]++
	return prefix + "_" + strconv.Itoa(t.next[prefix])
}

// ErrSessionClosing is StartTask's answer once the session is ending.
var ErrSessionClosing = errors.New("the session is closing; no new background task can start")

// StartTask adds a running task (info.ID from NewTaskID, or the CLI's own
// id under its prefix) and tells the front ends. stop asks the task to
// end (nil: it cannot be stopped from here); the owner calls End when it
// has.
func StartTask(env *Env, info event.Task, stop func()) (*TaskHandle, error) {
	t := tasksOf(env)
	info.Status = event.TaskRunning
	info.Stoppable = stop != nil
	if info.Started.IsZero() {
		info.Started = time.Now().UTC()
	}
	h := &TaskHandle{env: env, stop: stop, done: make(chan struct{}), info: info}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, ErrSessionClosing
	}
	if _, dup := t.tasks[info.ID]; !dup {
		t.order = append(t.order, info.ID)
	}
	t.tasks[info.ID] = h
	t.mu.Unlock()
	h.emit()
	return h, nil
}

// End records how the task ended (event.TaskCompleted, TaskFailed,
// TaskStopped) and tells the front ends; a task stopped through
// StopTask ends as stopped whatever status the owner gives. Only the
// first End counts.
func (h *TaskHandle) End(status, summary string) {
	h.mu.Lock()
	if h.info.Status != event.TaskRunning {
		h.mu.Unlock()
		return
	}
	if h.stopping {
		status, summary = event.TaskStopped, h.reason
	}
	h.info.Status, h.info.Summary, h.info.Ended = status, summary, time.Now().UTC()
	h.mu.Unlock()
	close(h.done)
	h.emit()
}

// Stop reasons, as the model and the user read them.
const (
	StoppedByUser       = "stopped by the user"
	StoppedBySessionEnd = "stopped because the session ended"
)

// StopReason says who asked the task to stop (StoppedByUser,
// StoppedBySessionEnd); "" when no one did.
func (h *TaskHandle) StopReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// SetSessionID records a sub-agent's stored session once it exists.
func (h *TaskHandle) SetSessionID(id string) {
	h.mu.Lock()
	h.info.SessionID = id
	h.mu.Unlock()
}

// Info is the task as it stands.
func (h *TaskHandle) Info() event.Task {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.info
}

func (h *TaskHandle) emit() {
	info := h.Info()
	h.env.Emit(event.Event{Type: event.BackgroundTask, ToolUseID: info.ToolUseID, Task: &info})
}

// Tasks lists the session's background tasks in the order they started.
func Tasks(env *Env) []event.Task {
	if env == nil || env.State == nil {
		return nil
	}
	t := tasksOf(env)
	t.mu.Lock()
	hs := make([]*TaskHandle, 0, len(t.order))
	for _, id := range t.order {
		hs = append(hs, t.tasks[id])
	}
	t.mu.Unlock()
	out := make([]event.Task, 0, len(hs))
	for _, h := range hs {
		out = append(out, h.Info())
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// StopTask asks a running task to stop and waits until it has ended (its
// owner reports the end to the model). ErrUnknownTask, ErrTaskEnded and
// ErrNotStoppable say why not.
func StopTask(env *Env, id string) (event.Task, error) {
	if err := ValidTaskID(id); err != nil {
		return event.Task{}, err
	}
	t := tasksOf(env)
	t.mu.Lock()
	h, ok := t.tasks[id]
	t.mu.Unlock()
	if !ok {
		return event.Task{}, fmt.Errorf("%w %q: list them with /tasks or GET /api/sessions/{id}/tasks", ErrUnknownTask, id)
	}
	err := h.requestStop(StoppedByUser)
	return h.Info(), err
}

// requestStop stops the task and waits until its owner has ended it.
func (h *TaskHandle) requestStop(reason string) error {
	h.mu.Lock()
	switch {
	case h.info.Status != event.TaskRunning:
		h.mu.Unlock()
		return fmt.Errorf("%w (%s)", ErrTaskEnded, h.info.Status)
	case h.stop == nil:
		h.mu.Unlock()
		return ErrNotStoppable
	}
	first := !h.stopping
	if first {
		h.stopping, h.reason = true, reason
	}
	h.mu.Unlock()
	if first {
		h.stop()
	}
	<-h.done
	return nil
}

// closeAll stops every running task; the session is ending. Each owner
// reports the end (to the model through Notify, kept by the session for
// its next run), so no task ends unsaid.
func (t *taskTable) closeAll() {
	t.mu.Lock()
	t.closed = true
	hs := make([]*TaskHandle, 0, len(t.tasks))
	for _, h := range t.tasks {
		hs = append(hs, h)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, h := range hs {
		if h.stop == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = h.requestStop(StoppedBySessionEnd) }()
	}
	wg.Wait()
}

// FirstLine is a one-line summary of a longer text, for a task's Summary.
func FirstLine(s string, max int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > max {
		line = string(r[:max]) + "…"
	}
	return line
}
