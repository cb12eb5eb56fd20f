package shell

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Processes a command leaves behind, however they detach (nohup, setsid,
// a double fork, a background job), end when the session closes.
func TestDetachedProcessesEndWithTheSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process tags are read from /proc")
	}
	env, _ := newTestEnv(t)
	bash := NewBash()
	spawn := func(name string) string {
		return "sh -c 'echo $$ > " + name + "; exec sleep 1000'"
	}
	cmd := "nohup " + spawn("p1") + " >/dev/null 2>&1 &\n" +
		"( " + spawn("p2") + " >/dev/null 2>&1 & )\n" +
		"setsid " + spawn("p3") + " >/dev/null 2>&1 &\n" +
		"( ( " + spawn("p4") + " >/dev/null 2>&1 & ) & )\n" +
		"echo started"
	res := run(t, context.Background(), bash, env, map[string]any{"command": cmd})
	if !strings.Contains(res.Content, "started") {
		t.Fatalf("%+v", res)
	}
	bg := run(t, context.Background(), bash, env, map[string]any{"command": "setsid " + spawn("p5") + " & " + spawn("p6"), "run_in_background": true})
	if bg.IsError {
		t.Fatalf("%+v", bg)
	}
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		for {
			b, err := os.ReadFile(filepath.Join(env.WorkDir, name))
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
				pids = append(pids, pid)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s was not written", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for i, pid := range pids {
		if !processAlive(pid) {
			t.Fatalf("p%d (%d) is not running before the session closes", i+1, pid)
		}
	}
	env.State.Close()
	for i, pid := range pids {
		if processAlive(pid) {
			t.Errorf("p%d (%d) outlived the session", i+1, pid)
		}
	}
}
