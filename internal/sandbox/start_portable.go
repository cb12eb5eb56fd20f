//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// Without Linux's per-session sandbox process, Start confines each command
// with its own launcher (Confine: sandbox-exec on macOS; an error where
// there is no sandbox) and starts it, so callers use one path everywhere.

type fastServer struct{}

// Start confines cmd and starts it in its own process group.
func (s *Sandbox) Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has already started")
	}
	if err := s.Confine(cmd); err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			p.status = ws
			if _, exit := err.(*exec.ExitError); exit {
				err = nil
			}
		}
		p.err = err
		close(p.done)
	}()
	return p, nil
}

// StartConfined is Start in the form internal/tool.Starter takes.
func (s *Sandbox) StartConfined(cmd *exec.Cmd) (pid int, wait func() (syscall.WaitStatus, error), err error) {
	p, err := s.Start(cmd)
	if err != nil {
		return 0, nil, err
	}
	return p.Pid, p.Wait, nil
}

// Open has no process to start (New already refused a system without a
// sandbox).
func (s *Sandbox) Open() error { return nil }

// Close has nothing to stop: each command's launcher ends with it.
func (s *Sandbox) Close() error { return nil }

// Process is a command started by Start.
type Process struct {
	// Pid is the command's process id and the id of its process group.
	Pid int

	done   chan struct{}
	status syscall.WaitStatus
	err    error
}

// Wait waits for the command to end and returns its status.
func (p *Process) Wait() (syscall.WaitStatus, error) {
	<-p.done
	return p.status, p.err
}

// Done is closed when the command has ended.
func (p *Process) Done() <-chan struct{} { return p.done }
