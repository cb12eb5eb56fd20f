//go:build !linux

package sandbox

import "os/exec"

func confineAttr(*exec.Cmd, bool) error { return ErrUnavailable }

func probeKernel(*Capabilities, string) {}

// Exec refuses: there is no launcher on this system.
func Exec([]string) int {
	println("tandem sandbox:", ErrUnavailable.Error())
	return 125
}

// ExecArg is the hidden subcommand Confine runs (Linux only).
const ExecArg = "__sandbox-exec"
