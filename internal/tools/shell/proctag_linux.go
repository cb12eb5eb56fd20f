package shell

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"github.com/tandem-agent/tandem/internal/procstat"
)

// taggedPids lists the live processes (not zombies) whose environment
// holds procTagVar=tag. Only the user's own processes are readable, which
// are the only ones a command can start.
func taggedPids(tag string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(procTagVar + "=" + tag + "\x00")
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 {
			continue
		}
		if bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)) {
			out = append(out, pid)
		}
	}
	return out
}

// processAlive is false for a process that is gone or a zombie.
func processAlive(pid int) bool {
	st, err := procstat.Read(pid)
	return err == nil && !st.Gone()
}

// startTime is a process's start time (field 22 of /proc/PID/stat, clock
// ticks since boot): with the pid it names one process for good.
func startTime(pid int) (uint64, bool) {
	st, err := procstat.Read(pid)
	return st.Start, err == nil
}

// commandAttr puts a command in its own process group and has the kernel
// kill it when the thread that started it ends. The caller starts it from
// a goroutine locked to its thread until the command has exited (see
// start): the death signal follows the starting thread, not the process,
// and Go may end an idle thread.
func commandAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
