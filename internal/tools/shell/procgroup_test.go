package shell

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// shedTagCmd leaves a process behind that dropped the session's tag (as
// `env -i`, `env -u`, `exec -c` and sudo's env reset do) but stays in the
// command's process group; its pid goes to pidFile.
func shedTagCmd(pidFile string) string {
	return "env -i /bin/sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' >/dev/null 2>&1 &\n" +
		"env -u TANDEM_PROCESS_TAG /bin/sh -c 'echo $$ > " + pidFile + "2; exec sleep 1000' >/dev/null 2>&1 &\n" +
		"echo started"
}

// A process that shed the tag ends with the session all the same: the
// session knows its commands' process groups.
func TestShedTagProcessesEndWithTheSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	env, _ := newTestEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": shedTagCmd(pidFile)})
	if !strings.Contains(res.Content, "started") {
		t.Fatalf("%+v", res)
	}
	pids := []int{readPid(t, pidFile), readPid(t, pidFile+"2")}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%d is not running before the session closes", pid)
		}
	}
	env.State.Close()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

// When tandem dies without closing the session (kill -9), the watchdog
// sees its input end and kills the session's groups and tagged processes.
func TestWatchdogStopsProcessesWhenTandemDies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	env, _ := newTestEnv(t)
	dir := t.TempDir()
	cmd := shedTagCmd(filepath.Join(dir, "pid")) + "\nsetsid /bin/sh -c 'echo $$ > " + filepath.Join(dir, "tagged") + "; exec sleep 1000' >/dev/null 2>&1 &"
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": cmd})
	if !strings.Contains(res.Content, "started") {
		t.Fatalf("%+v", res)
	}
	pids := []int{readPid(t, filepath.Join(dir, "pid")), readPid(t, filepath.Join(dir, "pid2")), readPid(t, filepath.Join(dir, "tagged"))}
	procs := sessionProcsOf(env)
	if procs.watch == nil {
		t.Fatal("no watchdog started")
	}
	// What the kernel does to tandem's end of the pipe when it dies.
	procs.watch.w.Close()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}
