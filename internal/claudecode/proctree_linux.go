package claudecode

import (
	"os"
	"strconv"

	"github.com/tandem-agent/tandem/internal/procstat"
)

// descendants lists the processes below pid. Claude Code starts its Bash
// tool in a new session, outside the CLI's process group, so killing the
// group alone would leave a running command behind; the tree must be read
// before the CLI dies, while the parent links still exist.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procstat.Read(p)
		if err != nil {
			continue
		}
		children[st.PPID] = append(children[st.PPID], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
