package shell

import (
	"os"
	"os/exec"
	"strconv"
)

// A command's gate: the command's process waits, before the shell runs
// anything of its script, until tandem has told the session's watchdog
// its process group. Without it, a tandem killed in the moment between
// starting a command and recording its group (a moment a loaded machine
// stretches to seconds) left what the command had started in the
// background, and had shed the session's tag (`env -i cmd &`), running
// for good: the watchdog knew no group to kill
// (TestE2EKilledTandemTakesItsCommandsAlong).
//
// The wait is a small POSIX shell (/bin/sh, the watchdog's own) that
// reads one line from a pipe and then execs the command's shell in its
// place: the same process, so the same pid, group, start time and death
// signal, and the script, its $0 and its other fds as they would be. If
// tandem dies first, the pipe ends without the line and the command never
// runs.
type gate struct{ r, w *os.File }

// gateScript reads the go-ahead from fd, closes it and execs "$@".
func gateScript(fd int) string {
	n := strconv.Itoa(fd)
	return `read -r _ <&` + n + ` || exit 125; exec ` + n + `<&-; exec "$@"`
}

// gateCommand puts cmd behind a gate when the session has a watchdog to
// tell; nil otherwise (nothing to wait for: no watchdog, or the session's
// sandbox process starts the command in a pid namespace that dies whole).
func gateCommand(cmd *exec.Cmd, procs *sessionProcs) (*gate, error) {
	fd := 3 + len(cmd.ExtraFiles)
	if procs == nil || procs.watch == nil || fd > 9 { // a POSIX shell's redirections take one digit
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Args = append([]string{"/bin/sh", "-c", gateScript(fd), "tandem-gate", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return &gate{r: r, w: w}, nil
}

// started drops tandem's copy of the read end (the command has its own).
func (g *gate) started() {
	if g != nil {
		g.r.Close()
	}
}

// open lets the command run: its group is recorded.
func (g *gate) open() {
	if g != nil {
		_, _ = g.w.Write([]byte("\n"))
		g.w.Close()
	}
}

// close ends a gate whose command did not start.
func (g *gate) close() {
	if g != nil {
		g.r.Close()
		g.w.Close()
	}
}
