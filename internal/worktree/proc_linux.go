package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/procstat"
)

// processStart names the process pid's start: this boot's id and the
// start time in clock ticks since boot (/proc/PID/stat field 22), so a pid
// reused by a later process, in this boot or another, names another start.
// gone is true when there is no such process (or only its zombie).
func processStart(pid int) (start string, gone bool, err error) {
	st, err := procstat.Read(pid)
	if errors.Is(err, os.ErrNotExist) {
		return "", true, nil
	}
	if err != nil {
		return "", false, err
	}
	if st.Gone() {
		return "", true, nil
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("%s:%d", bytes.TrimSpace(boot), st.Start), false, nil
}

// pidNamespace names the pid namespace this process sees pids in: a pid
// another namespace (a container) recorded means nothing here.
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}
