package worktree

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// processStart names the process pid's start: its start time as the
// kernel keeps it (kern.proc.pid), so a pid reused by a later process
// names another start. gone is true when there is no such process (or
// only its zombie).
func processStart(pid int) (start string, gone bool, err error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pid", pid)
	if err != nil {
		return "", false, err
	}
	if len(kps) == 0 || kps[0].Proc.P_pid != int32(pid) || kps[0].Proc.P_stat == 5 { // 5: SZOMB
		return "", true, nil
	}
	t := kps[0].Proc.P_starttime
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec), false, nil
}

// pidNamespace: one pid space per machine here.
func pidNamespace() string { return "" }
