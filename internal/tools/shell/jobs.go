package shell

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

// jobsKey holds the background job table in tool.State.
const jobsKey = "shell.jobs"

type jobStatus string

const (
	statusRunning jobStatus = "running"
	statusExited  jobStatus = "exited"
	statusKilled  jobStatus = "killed"
)

type jobTable struct {
	mu         sync.Mutex
	jobs       map[string]*job
	next       int
	registered bool
	closed     bool
}

type job struct {
	id, command, description string
	started                  time.Time
	proc                     *process
	log                      *jobLog
	out                      io.Writer // log, behind the secret redactor
	done                     chan struct{}

	mu      sync.Mutex
	status  jobStatus
	code    int
	readPos int64
}

// loadJobs returns the session's job table, making sure that closing the
// session kills every job. (OnClose cannot be called inside State.Load's
// init: both take the state's lock.)
func loadJobs(env *tool.Env) *jobTable {
	t := env.State.Load(jobsKey, func() any { return &jobTable{jobs: map[string]*job{}} }).(*jobTable)
	t.mu.Lock()
	register := !t.registered
	t.registered = true
	t.mu.Unlock()
	if register {
		env.State.OnClose(t.closeAll)
	}
	return t
}

func (t *jobTable) get(id string) (*job, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.jobs[id]
	return j, ok
}

func (t *jobTable) ids() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.jobs))
	for i := 1; i <= t.next; i++ {
		if _, ok := t.jobs["bash_"+strconv.Itoa(i)]; ok {
			out = append(out, "bash_"+strconv.Itoa(i))
		}
	}
	return out
}

// closeAll kills every running job; the session is ending.
func (t *jobTable) closeAll() {
	t.mu.Lock()
	t.closed = true
	jobs := make([]*job, 0, len(t.jobs))
	for _, j := range t.jobs {
		jobs = append(jobs, j)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() { defer wg.Done(); j.kill() }()
	}
	wg.Wait()
}

func startBackground(env *tool.Env, callID string, l launcher, command, description, dir string) (tool.Result, error) {
	t := loadJobs(env)
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return tool.ErrorResult("Bash: the session is closing; no new background shells can start."), nil
	}
	t.next++
	id := "bash_" + strconv.Itoa(t.next)
	t.mu.Unlock()

	log := newJobLog(env.DataDir, env.SessionID, id)
	out := l.redact.NewWriter(log)
	l.env = hardenGit(l.env, command, dir)
	p, err := start(startSpec{launcher: l, script: command, dir: dir, stdout: out, stderr: out, procs: sessionProcsOf(env)})
	if err != nil {
		log.close()
		return tool.ErrorResult(fmt.Sprintf("Bash could not start the background command in %s: %v", dir, err)), nil
	}
	j := &job{id: id, command: command, description: description, started: time.Now(),
		proc: p, log: log, out: out, status: statusRunning, done: make(chan struct{})}
	t.mu.Lock()
	t.jobs[id] = j
	t.mu.Unlock()
	// Listed with the session's other background tasks (/tasks, the API),
	// where the user may stop it.
	task, _ := tool.StartTask(env, event.Task{ID: id, Kind: event.TaskShell, Description: firstNonEmpty(description, command),
		ToolUseID: callID}, func() { j.kill() })
	go func() {
		j.watch()
		reason := ""
		if task != nil {
			reason = task.StopReason()
		}
		tool.Notify(env, j.endNotice(reason))
		if task != nil {
			task.End(j.taskEnd())
		}
		if l.sandbox != nil {
			// What the sandbox refused the job, from its output, once it
			// has ended (the model reads the errors with BashOutput).
			data, _, _ := j.log.readSince(0)
			tool.ReportDenials(env, callID, bashName, string(data), dir)
		}
	}()

	msg := fmt.Sprintf("Command running in background with ID: %s. Read its output with BashOutput and stop it with KillShell.", id)
	if log.path != "" {
		msg += " Its full output is also written to " + log.path + "."
	}
	meta := map[string]any{"bash_id": id, "background": true}
	if log.path != "" {
		meta["spill_path"] = log.path
	}
	return tool.Result{Content: msg, Meta: meta}, nil
}

// taskEnd is the job's end as the task table records it.
func (j *job) taskEnd() (status, summary string) {
	st, code := j.state()
	switch {
	case st == statusKilled:
		return event.TaskStopped, "was stopped"
	case code != 0:
		return event.TaskFailed, fmt.Sprintf("exited with code %d", code)
	}
	return event.TaskCompleted, "exited with code 0"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func (j *job) watch() {
	<-j.proc.exited
	j.proc.drain(drainWait)
	secrets.Flush(j.out)
	j.log.close()
	j.mu.Lock()
	j.code = j.proc.exitCode()
	if j.proc.wasKilled() {
		j.status = statusKilled
	} else {
		j.status = statusExited
	}
	j.mu.Unlock()
	close(j.done)
}

// endNotice tells the model the job ended (tool.Notify): Claude Code
// users lose background work silently; here its end is always said.
func (j *job) endNotice(stopReason string) string {
	status, code := j.state()
	how := fmt.Sprintf("exited with code %d", code)
	switch {
	case status == statusKilled && stopReason != "":
		how = "was " + stopReason
	case status == statusKilled:
		how = "was stopped"
	}
	return fmt.Sprintf("Background shell %s (`%s`) %s. Read its output with BashOutput (bash_id %s).", j.id, j.command, how, j.id)
}

// kill stops the job's process group and waits until it is gone. It
// reports false when the job had already ended.
func (j *job) kill() bool {
	select {
	case <-j.done:
		return false
	default:
	}
	j.proc.kill(killGrace)
	<-j.done
	return true
}

func (j *job) state() (jobStatus, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status, j.code
}
