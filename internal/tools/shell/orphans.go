package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
)

// A session's process record on disk, so that processes outliving both
// tandem and its watchdog (kill -9 of the whole group, the OOM killer) are
// stopped when the session is next opened. Each tandem process that runs
// commands for a session keeps one file, named after itself (pid and start
// time), under DataDir/procs/SESSION-ID/:
//
//	tag TANDEM_PROCESS_TAG-value
//	PGID START
//	...
//
// A file whose writer is still running belongs to a live tandem (which
// stops its own processes); any other is left over and reaped.
const procsFolder = "procs"

// recordLimit bounds a record read back: a session records a few lines per
// command it ran.
const recordLimit = 1 << 20

// procRecordDir is the folder of a session's process records, or "" for an
// id that is not a single plain path element (it must never lead outside).
func procRecordDir(dataDir, sessionID string) string {
	if dataDir == "" || sessionID == "" || sessionID == "." || sessionID == ".." ||
		strings.ContainsAny(sessionID, "/\\\x00") {
		return ""
	}
	return filepath.Join(dataDir, procsFolder, sessionID)
}

// ownerName names this tandem process's record: its pid and start time.
func ownerName() string {
	st, ok := startTime(os.Getpid())
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d-%d", os.Getpid(), st)
}

// ownerAlive reports whether the tandem that wrote the record named name
// still runs (same pid, same start time).
func ownerAlive(name string) bool {
	p, s, ok := strings.Cut(name, "-")
	if !ok {
		return false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	st, ok := startTime(pid)
	return ok && st == start && processAlive(pid)
}

// writeProcRecord replaces the record at path with tag and groups (an
// empty list removes it). Best effort: a record that cannot be written
// only loses the reaping after a crash, not the command.
func writeProcRecord(path, tag string, groups []procGroup) {
	if path == "" {
		return
	}
	if len(groups) == 0 {
		_ = os.Remove(path)
		_ = os.Remove(filepath.Dir(path)) // only when empty
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tag %s\n", tag)
	for _, g := range groups {
		fmt.Fprintf(&b, "%d %d\n", g.pgid, g.start)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
	}
}

// readProcRecord decodes a record; lines it cannot read are skipped.
func readProcRecord(path string) (tag string, groups []procGroup, err error) {
	b, _, err := regular.ReadCapped(path, recordLimit)
	if err != nil {
		return "", nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if t, ok := strings.CutPrefix(line, "tag "); ok {
			tag = t
			continue
		}
		p, s, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		pgid, err1 := strconv.Atoi(p)
		start, err2 := strconv.ParseUint(s, 10, 64)
		if err1 != nil || err2 != nil || pgid <= 1 {
			continue
		}
		groups = append(groups, procGroup{pgid: pgid, start: start})
	}
	return tag, groups, nil
}

// groupEnded reports whether no process is left in the group. Its pgid
// then may name a new process: the record entry must go.
func groupEnded(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// ReapOrphans stops the processes an earlier tandem started for the
// session and left running because it died together with its watchdog:
// SIGTERM to each recorded group still ours (the same start time, or its
// leader gone while the group lives on) and to the processes carrying the
// recorded tag, SIGKILL to what is left after a short grace. Records of a
// tandem still running are left alone: it stops its own processes. Call it
// when a session is opened.
func ReapOrphans(dataDir, sessionID string) {
	reapOrphans(dataDir, sessionID, killGrace)
}

func reapOrphans(dataDir, sessionID string, grace time.Duration) {
	dir := procRecordDir(dataDir, sessionID)
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") || ownerAlive(name) {
			continue
		}
		path := filepath.Join(dir, name)
		tag, groups, err := readProcRecord(path)
		if err == nil {
			reap(tag, groups, grace)
		}
		_ = os.Remove(path)
	}
	_ = os.Remove(dir) // only when empty
}

// reap stops the recorded groups still ours and the processes carrying
// tag.
func reap(tag string, groups []procGroup, grace time.Duration) {
	s := &sessionProcs{groups: groups}
	s.signalGroups(syscall.SIGTERM)
	if tag != "" {
		killTagged(tag, grace)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		left := false
		for _, g := range groups {
			if ours(g) && !groupEnded(g.pgid) {
				left = true
				break
			}
		}
		if !left {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.signalGroups(syscall.SIGKILL)
}
