package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Read reads pid's /proc/PID/stat. An error wrapping os.ErrNotExist means
// there is no such process.
func Read(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return parse(pid, b)
}

// parse decodes a stat line. The command name (field 2) is in parentheses
// and may hold spaces and parentheses: the fields after it start after the
// last ")".
func parse(pid int, b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return Stat{}, fmt.Errorf("/proc/%d/stat: parent: %w", pid, err)
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return Stat{}, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	return Stat{State: f[0][0], PPID: ppid, Start: start}, nil
}
