//go:build !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

func confineAttr(*exec.Cmd, bool) error { return ErrUnavailable }

func probeKernel(*Capabilities, string) {}

// Exec refuses: there is no launcher on this system.
func Exec([]string) int {
	println("tandem sandbox:", ErrUnavailable.Error())
	return 125
}

// ExecArg is the hidden subcommand Confine runs (Linux only).
const ExecArg = "__sandbox-exec"

type fastServer struct{}

// Start refuses: there is no sandbox on this system.
func (s *Sandbox) Start(*exec.Cmd) (*Process, error) { return nil, ErrUnavailable }

// StartConfined refuses: there is no sandbox on this system.
func (s *Sandbox) StartConfined(*exec.Cmd) (int, func() (syscall.WaitStatus, error), error) {
	return 0, nil, ErrUnavailable
}

// Open refuses: there is no sandbox on this system.
func (s *Sandbox) Open() error { return ErrUnavailable }

// Close has nothing to stop on this system.
func (s *Sandbox) Close() error { return nil }

// Process is a command started by Start (Linux only).
type Process struct{ Pid int }

// Wait reports that nothing ran.
func (p *Process) Wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	return ws, ErrUnavailable
}

// Done is closed: nothing runs.
func (p *Process) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
