//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

func confineAttr(*exec.Cmd, bool) error { return ErrUnavailable }

func probeKernel(*Capabilities, string) {}

// Exec refuses: there is no launcher on this system.
func Exec([]string) int {
	return fail(ErrUnavailable)
}

// fail reports a launcher error with status 125 (as on Linux).
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "tandem sandbox:", err)
	return 125
}

// ExecArg is the hidden subcommand Confine runs (Linux only).
const ExecArg = "__sandbox-exec"
