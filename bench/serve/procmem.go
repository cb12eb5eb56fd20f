package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// statusKB is a field of /proc/PID/status in KiB ("VmHWM", "VmRSS"); 0
// when the process is gone.
func statusKB(pid int, field string) int64 {
	return procKB(filepath.Join("/proc", strconv.Itoa(pid), "status"), field)
}

// procKB reads "Field:   N kB" from a /proc file.
func procKB(path, field string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// treePIDs is pid and its children (PostgreSQL: the postmaster and its
// backends, one process per connection).
func treePIDs(pid int) []int {
	out := []int{pid}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// pgMemory samples a PostgreSQL server's processes every second and keeps
// the peaks of their summed RSS (which counts the shared buffers once per
// backend that touched them) and summed PSS (shared pages split between
// the processes sharing them: the server's real footprint).
type pgMemory struct {
	pid  int
	stop chan struct{}
	done sync.WaitGroup

	mu       sync.Mutex
	rss, pss int64 // peaks, KiB
	maxProcs int
}

func watchPG(pid int) *pgMemory {
	m := &pgMemory{pid: pid, stop: make(chan struct{})}
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			m.sample()
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *pgMemory) sample() {
	var rss, pss int64
	pids := treePIDs(m.pid)
	for _, p := range pids {
		rss += statusKB(p, "VmRSS")
		pss += procKB(filepath.Join("/proc", strconv.Itoa(p), "smaps_rollup"), "Pss")
	}
	m.mu.Lock()
	m.rss, m.pss, m.maxProcs = max(m.rss, rss), max(m.pss, pss), max(m.maxProcs, len(pids))
	m.mu.Unlock()
}

// end stops sampling; it returns the peaks (KiB) and the most processes.
func (m *pgMemory) end() (rss, pss int64, procs int) {
	close(m.stop)
	m.done.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rss, m.pss, m.maxProcs
}

func kbMiB(kb int64) string { return strconv.FormatFloat(float64(kb)/1024, 'f', 1, 64) + " MiB" }

// loadAvgs is the machine's 1-, 5- and 15-minute load averages.
func loadAvgs() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
