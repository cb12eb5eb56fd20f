package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

type recorder struct {
	mu     sync.Mutex
	events []event.Event
	times  []time.Time
}

func (r *recorder) emit(e event.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.times = append(r.times, time.Now())
	r.mu.Unlock()
}

func (r *recorder) snapshot() ([]event.Event, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event{}, r.events...), append([]time.Time{}, r.times...)
}

func newTestEnv(t *testing.T) (*tool.Env, *recorder) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := tool.NewEnv("s1", dir, nil, t.TempDir())
	rec := &recorder{}
	env.Emit = rec.emit
	t.Cleanup(env.State.Close)
	return env, rec
}

func run(t *testing.T, ctx context.Context, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	raw, ok := input.(string)
	if !ok {
		b, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tl.Execute(ctx, tool.Call{ID: "call_1", Name: tl.Name(), Input: json.RawMessage(raw), Env: env})
	if err != nil {
		t.Fatalf("Execute returned a Go error: %v", err)
	}
	return res
}

func TestBashInputValidation(t *testing.T) {
	env, _ := newTestEnv(t)
	cases := []struct {
		name, input, want string
	}{
		{"empty object", `{}`, `"command" is missing`},
		{"null", `null`, `"command" is missing`},
		{"array", `[1,2]`, "expected a JSON object"},
		{"command not string", `{"command": 5}`, `field "command" must be a string`},
		{"blank command", `{"command": "   "}`, "missing or empty"},
		{"nul byte", `{"command": "echo a\u0000b"}`, "NUL byte"},
		{"negative timeout", `{"command": "true", "timeout": -5}`, "positive number"},
		{"string timeout", `{"command": "true", "timeout": "100"}`, `"timeout" must be a number`},
		{"background not bool", `{"command": "true", "run_in_background": "yes"}`, "must be a boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, context.Background(), NewBash(), env, tc.input)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got %+v, want error containing %q", res, tc.want)
			}
		})
	}
}

func TestBashExitCodesAndOutput(t *testing.T) {
	env, _ := newTestEnv(t)
	cases := []struct {
		cmd      string
		code     int
		contains []string
		isErr    bool
	}{
		{"echo hello", 0, []string{"hello"}, false},
		{"true", 0, []string{"(no output)"}, false},
		{"exit 3", 3, []string{"Exit code 3"}, true},
		{"echo out; echo err >&2; exit 1", 1, []string{"out", "err", "Exit code 1"}, true},
		{"false", 1, []string{"Exit code 1"}, true},
		{"kill -9 $$", 137, []string{"Exit code 137"}, true},
		{"cat", 0, []string{"(no output)"}, false}, // stdin is /dev/null: no hang
		{"echo $PAGER $GIT_PAGER $TERM $NO_COLOR $GIT_TERMINAL_PROMPT", 0, []string{"cat cat dumb 1 0"}, false},
		{"if then fi", 2, []string{"syntax error"}, true},
		{"echo 'multi\nline' # trailing comment", 0, []string{"multi"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			res := run(t, context.Background(), NewBash(), env, map[string]any{"command": tc.cmd})
			if got := res.Meta["exit_code"]; got != tc.code {
				t.Errorf("exit code %v, want %d (content %q)", got, tc.code, res.Content)
			}
			if res.IsError != tc.isErr {
				t.Errorf("IsError %v, want %v", res.IsError, tc.isErr)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content %q lacks %q", res.Content, s)
				}
			}
		})
	}
}

func TestBashStreamsBeforeEnd(t *testing.T) {
	env, rec := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{
		"command": "echo first; sleep 0.5; echo second >&2; sleep 0.3"})
	end := time.Now()
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	evs, times := rec.snapshot()
	var firstAt time.Time
	streams := map[string]string{}
	for i, e := range evs {
		if e.Type != event.ToolOutput {
			continue
		}
		if e.ToolUseID != "call_1" {
			t.Errorf("event has tool_use_id %q", e.ToolUseID)
		}
		streams[e.Stream] += e.Output
		if firstAt.IsZero() && strings.Contains(e.Output, "first") {
			firstAt = times[i]
		}
	}
	if streams["stdout"] != "first\n" || streams["stderr"] != "second\n" {
		t.Fatalf("streams = %q", streams)
	}
	if firstAt.IsZero() || end.Sub(firstAt) < 600*time.Millisecond {
		t.Fatalf("first output was not streamed early: at %v, end %v", firstAt, end)
	}
}

func TestBashCoalescesChattyOutput(t *testing.T) {
	env, rec := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{
		"command": "for i in $(seq 1 3000); do echo line$i; done"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	evs, _ := rec.snapshot()
	var all strings.Builder
	n := 0
	for _, e := range evs {
		if e.Type == event.ToolOutput {
			n++
			all.WriteString(e.Output)
		}
	}
	if n > 40 {
		t.Errorf("%d output events for 3000 lines; want coalescing", n)
	}
	if !strings.HasSuffix(all.String(), "line3000\n") || strings.Count(all.String(), "\n") != 3000 {
		t.Errorf("streamed output incomplete: %d lines", strings.Count(all.String(), "\n"))
	}
}

func TestBashTruncatesAndSpills(t *testing.T) {
	env, _ := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{
		"command": "echo START; for i in $(seq 1 20000); do echo \"line $i\"; done; echo END"})
	if res.Meta["truncated"] != true {
		t.Fatalf("not truncated: meta %v", res.Meta)
	}
	if len(res.Content) > maxInline+500 {
		t.Errorf("content is %d bytes", len(res.Content))
	}
	if !strings.HasPrefix(res.Content, "START\n") || !strings.Contains(res.Content, "END") {
		t.Errorf("head or tail missing")
	}
	spill, _ := res.Meta["spill_path"].(string)
	if spill == "" || !strings.Contains(res.Content, spill) {
		t.Fatalf("spill path not reported: %v", res.Meta)
	}
	if !strings.HasPrefix(spill, env.DataDir) {
		t.Errorf("spill %s not under DataDir %s", spill, env.DataDir)
	}
	b, err := os.ReadFile(spill)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "line 10000\n") || !strings.HasSuffix(string(b), "END\n") {
		t.Errorf("spill file incomplete (%d bytes)", len(b))
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// grandchildCmd starts a sleep in a subshell (a grandchild of the tool's
// shell), records its pid, and waits.
func grandchildCmd(pidFile string) string {
	return "(sleep 300 & echo $! > " + pidFile + "; wait) ; echo never"
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file %s never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBashTimeoutKillsProcessTree(t *testing.T) {
	env, rec := newTestEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	startT := time.Now()
	res := run(t, context.Background(), NewBash(), env, map[string]any{
		"command": grandchildCmd(pidFile), "timeout": 300})
	if took := time.Since(startT); took > 30*time.Second {
		t.Errorf("timeout took %v", took)
	}
	if !res.Timeout || !res.IsError || !strings.Contains(res.Content, "timed out") {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, readPid(t, pidFile))
	evs, _ := rec.snapshot()
	found := false
	for _, e := range evs {
		if e.Type == event.ToolTimeout && e.ToolUseID == "call_1" && e.TimeoutMS == 300 {
			found = true
		}
	}
	if !found {
		t.Errorf("no tool_timeout event in %v", evs)
	}
}

func TestBashCancellationKillsProcessTree(t *testing.T) {
	env, _ := newTestEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		readPid(t, pidFile)
		cancel()
	}()
	res := run(t, ctx, NewBash(), env, map[string]any{"command": grandchildCmd(pidFile)})
	if res.Timeout || !res.IsError || !strings.Contains(res.Content, "interrupted") || res.Meta["interrupted"] != true {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestBashTimeoutClamped(t *testing.T) {
	env, _ := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": "echo ok", "timeout": 9e6})
	if res.IsError || !strings.Contains(res.Content, "exceeds the maximum") || !strings.Contains(res.Content, "ok") {
		t.Fatalf("result %+v", res)
	}
}

func TestBashCwdPersists(t *testing.T) {
	env, _ := newTestEnv(t)
	sub := filepath.Join(env.WorkDir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	b := NewBash()
	if got := CurrentDir(env); got != env.WorkDir {
		t.Fatalf("initial dir %s", got)
	}
	run(t, context.Background(), b, env, map[string]any{"command": "cd a/b"})
	if got := CurrentDir(env); got != sub {
		t.Fatalf("after cd: %s, want %s", got, sub)
	}
	res := run(t, context.Background(), b, env, map[string]any{"command": "pwd"})
	if strings.TrimSpace(res.Content) != sub {
		t.Fatalf("pwd = %q", res.Content)
	}
	// exit in the middle still records the folder.
	run(t, context.Background(), b, env, map[string]any{"command": "cd .. && exit 4"})
	if got := CurrentDir(env); got != filepath.Join(env.WorkDir, "a") {
		t.Fatalf("after cd+exit: %s", got)
	}
	// Leaving the session's folders resets to WorkDir and says so.
	res = run(t, context.Background(), b, env, map[string]any{"command": "cd /"})
	if got := CurrentDir(env); got != env.WorkDir || !strings.Contains(res.Content, "reset to") {
		t.Fatalf("cd / left dir %s, content %q", got, res.Content)
	}
	// A removed folder falls back to WorkDir.
	run(t, context.Background(), b, env, map[string]any{"command": "cd a/b"})
	os.RemoveAll(filepath.Join(env.WorkDir, "a"))
	if got := CurrentDir(env); got != env.WorkDir {
		t.Fatalf("removed dir: %s", got)
	}
}

func TestBashStdoutNotPollutedByCwdCapture(t *testing.T) {
	env, _ := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": "printf abc"})
	if res.Content != "abc" {
		t.Fatalf("content %q", res.Content)
	}
}

// A background child inherits the cwd pipe; the result must not wait for it,
// and the folder and the exit code must still come through.
func TestBashCwdWithLingeringChild(t *testing.T) {
	env, _ := newTestEnv(t)
	sub := filepath.Join(env.WorkDir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := run(t, context.Background(), NewBash(), env, map[string]any{
		"command": "sleep 60 >/dev/null 2>&1 & echo junk >&3; cd sub; exit 3"})
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Bash waited %s for the background child", d)
	}
	if got := CurrentDir(env); got != sub {
		t.Fatalf("cwd %s, want %s", got, sub)
	}
	if !res.IsError || res.Meta["exit_code"] != 3 {
		t.Fatalf("result %+v", res)
	}
}
