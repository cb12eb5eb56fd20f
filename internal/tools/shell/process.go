package shell

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	// killGrace is how long a process group gets between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
	// drainWait bounds how long output is read after the shell exits: a
	// background child (`server &`) may hold the pipes open indefinitely.
	drainWait = 250 * time.Millisecond
)

// nonInteractiveEnv keeps commands from waiting for a human: pagers print,
// editors return at once, git never prompts, and colour codes (which only
// waste the model's context) are off.
var nonInteractiveEnv = [][2]string{
	{"PAGER", "cat"}, {"GIT_PAGER", "cat"}, {"MANPAGER", "cat"}, {"SYSTEMD_PAGER", ""},
	{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_EDITOR", "true"}, {"EDITOR", "true"}, {"VISUAL", "true"},
	{"DEBIAN_FRONTEND", "noninteractive"}, {"NO_COLOR", "1"}, {"TERM", "dumb"},
	{"TANDEM", "1"},
	// A relative `cd` must go where the validator thinks it goes (git is
	// vetted in the folders the script's cd commands reach).
	{"CDPATH", ""},
}

// commandEnv returns the environment for a command: tandem's own without
// its credentials, plus the non-interactive overrides. CI is left as the
// user has it: setting it changes what test tools do, which the user did
// not ask for.
func commandEnv(policy secrets.Policy) []string {
	m := map[string]string{}
	for _, kv := range policy.ScrubEnv(os.Environ()) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for _, kv := range nonInteractiveEnv {
		m[kv[0]] = kv[1]
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// launcher is what every command starts with: the shell, the environment
// and the redactor that blanks secret values in what commands print.
type launcher struct {
	shell  string
	env    []string
	redact *secrets.Redactor
	// sandbox confines every process started (nil: none).
	sandbox tool.Confiner
}

// newLauncher builds the launcher; redact nil builds policy's redactor.
func newLauncher(policy secrets.Policy, redact *secrets.Redactor) launcher {
	if redact == nil {
		redact = policy.Redactor(os.Environ())
	}
	return launcher{shell: shellPath(), env: commandEnv(policy), redact: redact}
}

// shellPath finds bash, or sh when bash is missing.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// process is one running shell in its own process group.
type process struct {
	cmd *exec.Cmd
	// pgid is the shell's process (and group) id.
	pgid    int
	pipes   []*os.File // read ends
	readers sync.WaitGroup
	exited  chan struct{}
	waitErr error
	// status is the shell's wait status when the sandbox's own process
	// started it (tool.Starter); cmd.ProcessState otherwise.
	status *syscall.WaitStatus
	killMu sync.Mutex
	killed bool
}

type startSpec struct {
	launcher
	script string
	dir    string
	stdout io.Writer
	stderr io.Writer
	extra  []*os.File    // become fd 3, 4, ...
	procs  *sessionProcs // the session's processes: its tag, its command groups
}

// start runs script with the shell in a new process group, stdin from
// /dev/null, copying stdout and stderr to the writers as they arrive.
func start(spec startSpec) (*process, error) {
	if spec.shell == "" {
		spec.launcher = newLauncher(secrets.Policy{}, nil)
	}
	cmd := exec.Command(spec.shell, "-c", spec.script)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	if spec.procs != nil {
		cmd.Env = append(append([]string(nil), spec.env...), procTagVar+"="+spec.procs.tag)
	}
	cmd.SysProcAttr = commandAttr()
	cmd.ExtraFiles = spec.extra
	starter, fast := spec.sandbox.(tool.Starter)
	var g *gate
	if !fast {
		var err error
		if g, err = gateCommand(cmd, spec.procs); err != nil {
			return nil, fmt.Errorf("start the command: %w", err)
		}
	}
	if spec.sandbox != nil && !fast {
		if err := spec.sandbox.Confine(cmd); err != nil {
			g.close()
			return nil, fmt.Errorf("start the command in the sandbox: %w", err)
		}
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	var writeEnds []*os.File
	closeAll := func() {
		for _, f := range append(writeEnds, p.pipes...) {
			f.Close()
		}
	}
	for i, w := range []io.Writer{spec.stdout, spec.stderr} {
		r, wf, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("create output pipe: %w", err)
		}
		p.pipes = append(p.pipes, r)
		writeEnds = append(writeEnds, wf)
		if i == 0 {
			cmd.Stdout = wf
		} else {
			cmd.Stderr = wf
		}
		p.readers.Add(1)
		go p.copy(w, r)
	}
	if fast {
		// The session's sandbox process starts it: in its own group, dead
		// with the session and with tandem.
		pid, wait, err := starter.StartConfined(cmd)
		for _, f := range writeEnds {
			f.Close()
		}
		if err != nil {
			for _, f := range p.pipes {
				f.Close()
			}
			return nil, fmt.Errorf("start the command in the sandbox: %w", err)
		}
		p.pgid = pid
		go func() {
			ws, err := wait()
			p.status, p.waitErr = &ws, err
			close(p.exited)
		}()
		spec.procs.add(pid)
		return p, nil
	}
	// Started and waited for on one locked thread: the kernel sends the
	// death signal when the starting thread ends, which must mean tandem
	// ended, not that Go retired a thread.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		closeAll()
		g.close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	g.started()
	p.pgid = cmd.Process.Pid
	spec.procs.add(p.pgid)
	g.open() // its group is the watchdog's: the command may run
	for _, f := range writeEnds {
		f.Close()
	}
	return p, nil
}

func (p *process) copy(w io.Writer, r *os.File) {
	defer p.readers.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// drain waits for the output readers after the shell exited, for at most
// wait, then closes the pipes so that lingering children cannot block us.
func (p *process) drain(wait time.Duration) {
	done := make(chan struct{})
	go func() { p.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		for _, f := range p.pipes {
			f.Close()
		}
		<-done
		return
	}
	for _, f := range p.pipes {
		f.Close()
	}
}

// kill stops the whole process group: SIGTERM, then SIGKILL after grace
// (or as soon as the shell is gone, for children that outlive it).
func (p *process) kill(grace time.Duration) {
	p.killMu.Lock()
	p.killed = true
	p.killMu.Unlock()
	pgid := p.pgid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
		// Children got the same SIGTERM; give them a moment to go quietly.
		time.Sleep(min(100*time.Millisecond, grace))
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func (p *process) wasKilled() bool {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	return p.killed
}

// exitCode returns the shell's exit code, or 128+signal when a signal ended
// it (as shells report it). Only valid after exited is closed.
func (p *process) exitCode() int {
	if p.status != nil {
		if p.status.Signaled() {
			return 128 + int(p.status.Signal())
		}
		return p.status.ExitStatus()
	}
	st := p.cmd.ProcessState
	if st == nil {
		var ee *exec.ExitError
		if errors.As(p.waitErr, &ee) {
			st = ee.ProcessState
		} else {
			return -1
		}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
