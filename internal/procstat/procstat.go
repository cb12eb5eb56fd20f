// Package procstat reads what tandem needs of another process from
// /proc/PID/stat (Linux): its state, its parent and its start time. One
// parser for the shell's process groups, the worktree owner markers and
// the claude-code runtime's process tree.
package procstat

// Stat is a process's entry in /proc/PID/stat.
type Stat struct {
	// State is field 3: 'R', 'S', 'D', 'Z' (zombie), 'X' (dead)...
	State byte
	// PPID is field 4, the parent's pid.
	PPID int
	// Start is field 22, the start time in clock ticks since boot: with
	// the pid it names one process of this boot for good.
	Start uint64
}

// Gone is true for a process that has exited (a zombie or dead entry).
func (s Stat) Gone() bool { return s.State == 'Z' || s.State == 'X' }
