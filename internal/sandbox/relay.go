package sandbox

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// relay starts cmd as a launcher's child, passes on the signals that end
// a process, and returns the status the launcher exits with: the child's
// own, or 128+N when signal N ended it (as a shell reports it).
func relay(cmd *exec.Cmd) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	cmd.Wait()
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		return 128 + int(st.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
