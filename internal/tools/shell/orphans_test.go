package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// When tandem and its watchdog both die (kill -9 of the whole group, the
// OOM killer), the session's commands run on; opening the session again
// stops them from the record left on disk, but never a process that now
// has a recorded pid with another start time.
func TestResumeReapsOrphansOfADeadTandem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	env, _ := newTestEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// Sheds the tag and stays in the command's group.
	cmd := "env -i /bin/sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' >/dev/null 2>&1 &\necho started"
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": cmd})
	if !strings.Contains(res.Content, "started") {
		t.Fatalf("%+v", res)
	}
	orphan := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(orphan, syscall.SIGKILL) })

	// A live process whose pid a record names with another start time: the
	// system reused the pid.
	other := exec.Command("sleep", "1000")
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	st, ok := startTime(other.Process.Pid)
	if !ok {
		t.Fatal("no start time")
	}

	// tandem and its watchdog die: nothing is killed, the in-memory state
	// is lost, the record stays. The record's writer is gone: the same pid
	// with another start time.
	procs := sessionProcsOf(env)
	procs.watch.stop()
	dir := procRecordDir(env.DataDir, env.SessionID)
	if err := os.Rename(procs.record, filepath.Join(dir, fmt.Sprintf("%d-1", os.Getpid()))); err != nil {
		t.Fatalf("no record of the session's groups: %v", err)
	}
	reused := filepath.Join(dir, fmt.Sprintf("%d-2", os.Getpid()))
	writeProcRecord(reused, "", []procGroup{{pgid: other.Process.Pid, start: st + 1}})
	if !alive(orphan) {
		t.Fatal("the command's process ended before the session was resumed")
	}

	// The session is opened again (by a new tandem: fresh state).
	resumed := tool.NewEnv(env.SessionID, env.WorkDir, nil, env.DataDir)
	t.Cleanup(resumed.State.Close)
	ReapOrphans(resumed.DataDir, resumed.SessionID)
	waitGone(t, orphan)
	time.Sleep(100 * time.Millisecond) // a wrong SIGTERM would have landed by now
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("a process with a reused pid was killed: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the record is still there: %v", err)
	}
}

// A live tandem's record is its own: opening the session elsewhere leaves
// its processes alone.
func TestReapLeavesALiveTandemsProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	env, _ := newTestEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := "env -i /bin/sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' >/dev/null 2>&1 &\necho started"
	run(t, context.Background(), NewBash(), env, map[string]any{"command": cmd})
	pid := readPid(t, pidFile)
	ReapOrphans(env.DataDir, env.SessionID)
	time.Sleep(100 * time.Millisecond)
	if !alive(pid) {
		t.Fatal("a live tandem's process was reaped")
	}
	env.State.Close()
	waitGone(t, pid)
	if _, err := os.Stat(procRecordDir(env.DataDir, env.SessionID)); !os.IsNotExist(err) {
		t.Fatalf("the record outlives the session's close: %v", err)
	}
}

// Session ids never lead outside the records' folder.
func TestProcRecordDirRefusesSeparators(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a/b", "../x", `a\b`, "a\x00b"} {
		if d := procRecordDir("/data", id); d != "" {
			t.Errorf("%q: %q", id, d)
		}
	}
	if d := procRecordDir("/data", "s1"); d != filepath.Join("/data", procsFolder, "s1") {
		t.Errorf("got %q", d)
	}
}
