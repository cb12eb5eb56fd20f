package shell

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// procTagVar marks every process a session's commands start. A process
// group is not enough to find them all: `setsid cmd &`, `nohup cmd &`,
// `(cmd &)` and double forks leave the group (and re-parent to init) but
// keep their environment, so the tag still names their session. A command
// can shed the tag (`env -i`, `env -u`, `exec -c`, sudo's env reset), but
// not its process group without also leaving the session's terminal: the
// session remembers each command's group too (sessionProcs). When the
// session ends, every process carrying its tag or in one of its groups is
// stopped; when tandem dies without closing it (kill -9), the session's
// watchdog does the same.
const procTagVar = "TANDEM_PROCESS_TAG"

const procTagKey = "shell.proctag"

// sessionProcs is what a session knows of the processes its commands
// started: the tag, the process group of each command (its leader's pid
// and start time, so a pid the system reused is never taken for ours),
// and the watchdog that stops them if tandem dies.
type sessionProcs struct {
	tag    string
	watch  *watchdog // nil where none could start
	record string    // the groups on disk, for a later open to reap (see orphans.go); "": none

	mu     sync.Mutex
	groups []procGroup
}

type procGroup struct {
	pgid  int
	start uint64 // the leader's start time in clock ticks since boot (/proc/PID/stat)
}

// sessionProcsOf returns the session's process record, registering the
// cleanup that stops its processes when the session closes.
func sessionProcsOf(env *tool.Env) *sessionProcs {
	created := false
	p := env.State.Load(procTagKey, func() any {
		created = true
		var b [8]byte
		_, _ = rand.Read(b[:])
		tag := fmt.Sprintf("%d-%s-%s", os.Getpid(), env.SessionID, hex.EncodeToString(b[:]))
		p := &sessionProcs{tag: tag, watch: startWatchdog(tag)}
		if dir, owner := procRecordDir(env.DataDir, env.SessionID), ownerName(); dir != "" && owner != "" {
			p.record = filepath.Join(dir, owner)
		}
		return p
	}).(*sessionProcs)
	if created {
		env.State.OnClose(func() { p.stopAll(killGrace) })
	}
	return p
}

// add records a command's process group (its leader is pid).
func (s *sessionProcs) add(pid int) {
	if s == nil {
		return
	}
	st, ok := startTime(pid)
	if !ok {
		// The leader has already exited (a command that only starts
		// something in the background): the group is still ours while it
		// lives, since no new process takes a live group's number; 0
		// matches no later leader's start time.
		if groupEnded(pid) {
			return
		}
		st = 0
	}
	g := procGroup{pgid: pid, start: st}
	s.mu.Lock()
	// Groups that ended leave the record: their pgid may name a new
	// process.
	kept := s.groups[:0]
	for _, o := range s.groups {
		if !groupEnded(o.pgid) {
			kept = append(kept, o)
		}
	}
	s.groups = append(kept, g)
	// The watchdog first: the command waits at its gate (gate.go) for
	// this call to return.
	s.watch.add(g)
	writeProcRecord(s.record, s.tag, s.groups)
	s.mu.Unlock()
}

// signalGroups sends sig to every recorded group still ours: its leader
// is gone (the group lives on in what it started) or is the process
// recorded.
func (s *sessionProcs) signalGroups(sig syscall.Signal) {
	s.mu.Lock()
	groups := append([]procGroup(nil), s.groups...)
	s.mu.Unlock()
	for _, g := range groups {
		if ours(g) {
			_ = syscall.Kill(-g.pgid, sig)
		}
	}
}

// ours is false when the group's pid now names another process (its start
// time differs).
func ours(g procGroup) bool {
	st, ok := startTime(g.pgid)
	return !ok || st == g.start
}

// stopAll stops every process of the session: SIGTERM to its groups and
// tagged processes, SIGKILL to what is left after grace.
func (s *sessionProcs) stopAll(grace time.Duration) {
	s.watch.stop() // tandem is alive and does the work itself
	s.signalGroups(syscall.SIGTERM)
	killTagged(s.tag, grace)
	s.signalGroups(syscall.SIGKILL)
	s.mu.Lock()
	s.groups = nil
	writeProcRecord(s.record, s.tag, nil)
	s.mu.Unlock()
}

// killTagged stops every process carrying tag: SIGTERM, then SIGKILL for
// those still there after grace.
func killTagged(tag string, grace time.Duration) {
	pids := taggedPids(tag)
	if len(pids) == 0 {
		return
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range pids {
			if processAlive(pid) {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range taggedPids(tag) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
