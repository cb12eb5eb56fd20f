package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// processStart names the process pid's start: this boot's id and the
// start time in clock ticks since boot (/proc/PID/stat field 22), so a pid
// reused by a later process, in this boot or another, names another start.
// gone is true when there is no such process (or only its zombie).
func processStart(pid int) (start string, gone bool, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return "", true, nil
	}
	if err != nil {
		return "", false, err
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses: the fields after it start after the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return "", false, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	if string(f[0]) == "Z" || string(f[0]) == "X" {
		return "", true, nil
	}
	ticks, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return "", false, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("%s:%d", bytes.TrimSpace(boot), ticks), false, nil
}

// pidNamespace names the pid namespace this process sees pids in: a pid
// another namespace (a container) recorded means nothing here.
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}
