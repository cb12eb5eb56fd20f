package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBackgroundJobLifecycle(t *testing.T) {
	env, _ := newTestEnv(t)
	ctx := context.Background()
	gate := filepath.Join(t.TempDir(), "gate")
	cmd := fmt.Sprintf("echo one; echo two; while [ ! -e %s ]; do sleep 0.02; done; echo three; echo err >&2; exit 7", gate)
	res := run(t, ctx, NewBash(), env, map[string]any{"command": cmd, "run_in_background": true})
	id, _ := res.Meta["bash_id"].(string)
	if res.IsError || id != "bash_1" || !strings.Contains(res.Content, id) {
		t.Fatalf("start: %+v", res)
	}
	bo := NewBashOutput()
	var out string
	waitFor(t, "first output", func() bool {
		r := run(t, ctx, bo, env, map[string]any{"bash_id": id})
		out += r.Content
		return strings.Contains(out, "two")
	})
	// The two lines may arrive across several reads; each read carries its own
	// status, so only their order is fixed.
	one, two := strings.Index(out, "one\n"), strings.Index(out, "two\n")
	if !strings.Contains(out, "<status>running</status>") || one < 0 || two < one {
		t.Fatalf("first read: %q", out)
	}
	// Nothing new yet: the next read must not repeat old output.
	r := run(t, ctx, bo, env, map[string]any{"bash_id": id})
	if strings.Contains(r.Content, "one") || !strings.Contains(r.Content, "no new output") {
		t.Fatalf("repeat read: %q", r.Content)
	}
	os.WriteFile(gate, nil, 0o644)
	waitFor(t, "exit", func() bool {
		st, _ := loadJobs(env).jobs[id].state()
		return st == statusExited
	})
	// Its end is reported to the model (tool.Notify), once.
	var notices []string
	waitFor(t, "end notice", func() bool { notices = append(notices, tool.TakeNotices(env)...); return len(notices) > 0 })
	if len(notices) != 1 || !strings.Contains(notices[0], "bash_1") || !strings.Contains(notices[0], "exited with code 7") {
		t.Fatalf("notices = %q", notices)
	}
	r = run(t, ctx, bo, env, map[string]any{"bash_id": id, "filter": "^thr"})
	if !strings.Contains(r.Content, "three") || strings.Contains(r.Content, "err") ||
		!strings.Contains(r.Content, "<status>exited</status>") || !strings.Contains(r.Content, "<exit_code>7</exit_code>") {
		t.Fatalf("filtered read: %q", r.Content)
	}
	// Filtered-out lines are consumed.
	r = run(t, ctx, bo, env, map[string]any{"bash_id": id})
	if strings.Contains(r.Content, "err") {
		t.Fatalf("filtered lines came back: %q", r.Content)
	}
	// Killing an exited shell is an error the model can read.
	r = run(t, ctx, NewKillShell(), env, map[string]any{"shell_id": id})
	if !r.IsError || !strings.Contains(r.Content, "not running") {
		t.Fatalf("kill exited: %+v", r)
	}
}

func TestKillShellKillsProcessGroup(t *testing.T) {
	env, _ := newTestEnv(t)
	ctx := context.Background()
	pidFile := filepath.Join(t.TempDir(), "pid")
	res := run(t, ctx, NewBash(), env, map[string]any{"command": grandchildCmd(pidFile), "run_in_background": true})
	id := res.Meta["bash_id"].(string)
	pid := readPid(t, pidFile)
	r := run(t, ctx, NewKillShell(), env, map[string]any{"shell_id": id})
	if r.IsError || !strings.Contains(r.Content, "killed") {
		t.Fatalf("kill: %+v", r)
	}
	waitGone(t, pid)
	r = run(t, ctx, NewBashOutput(), env, map[string]any{"bash_id": id})
	if !strings.Contains(r.Content, "<status>killed</status>") {
		t.Fatalf("status after kill: %q", r.Content)
	}
}

func TestSessionCloseKillsJobs(t *testing.T) {
	env, _ := newTestEnv(t)
	ctx := context.Background()
	var pids []int
	for i := 0; i < 2; i++ {
		pidFile := filepath.Join(t.TempDir(), "pid")
		run(t, ctx, NewBash(), env, map[string]any{"command": grandchildCmd(pidFile), "run_in_background": true})
		pids = append(pids, readPid(t, pidFile))
	}
	env.State.Close()
	for _, pid := range pids {
		waitGone(t, pid)
	}
	res := run(t, ctx, NewBash(), env, map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError {
		t.Fatalf("start after close: %+v", res)
	}
}

func TestBackgroundOutputIsBounded(t *testing.T) {
	env, _ := newTestEnv(t)
	ctx := context.Background()
	res := run(t, ctx, NewBash(), env, map[string]any{
		"command": "for i in $(seq 1 40000); do echo \"row $i\"; done", "run_in_background": true})
	id := res.Meta["bash_id"].(string)
	j, _ := loadJobs(env).get(id)
	<-j.done
	if len(j.log.ring) > 2*ringCap {
		t.Fatalf("ring holds %d bytes", len(j.log.ring))
	}
	r := run(t, ctx, NewBashOutput(), env, map[string]any{"bash_id": id})
	if len(r.Content) > maxInline+1000 || !strings.Contains(r.Content, "row 40000") || !strings.Contains(r.Content, "skipped") {
		t.Fatalf("unbounded or wrong read (%d bytes): %.200q", len(r.Content), r.Content)
	}
	// A filter reaches lines the memory ring no longer holds (via the log file).
	j.readPos = 0
	r = run(t, ctx, NewBashOutput(), env, map[string]any{"bash_id": id, "filter": "^row 7$"})
	if !strings.Contains(r.Content, "row 7\n") {
		t.Fatalf("filter over log file: %q", r.Content)
	}
}

func TestJobToolsValidation(t *testing.T) {
	env, _ := newTestEnv(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		tl    tool.Tool
		input string
		want  string
	}{
		{"output missing id", NewBashOutput(), `{}`, `"bash_id" is missing`},
		{"output unknown id", NewBashOutput(), `{"bash_id":"bash_9"}`, "none was started"},
		{"output bad filter", NewBashOutput(), `{"bash_id":"bash_1","filter":"("}`, "not a valid regular expression"},
		{"output id wrong type", NewBashOutput(), `{"bash_id":1}`, "must be a string"},
		{"kill missing id", NewKillShell(), `{}`, `"shell_id" is missing`},
		{"kill unknown id", NewKillShell(), `{"shell_id":"nope"}`, "No background shell"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, ctx, tc.tl, env, tc.input)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got %+v, want %q", res, tc.want)
			}
		})
	}
}
