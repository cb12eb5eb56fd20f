package main

// Helpers for the e2e_run_* tests: tandem processes the test controls
// (signals, kill -9), and readers for what the scripted server received.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// liveProc is a tandem process running in the background whose stdout
// events are collected as they arrive.
type liveProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mu     sync.Mutex
	events []event.Event
	stdout bytes.Buffer
	exited chan struct{}
	code   int
}

// Start launches tandem with args and returns at once.
func (x *e2e) Start(args ...string) *liveProc {
	x.t.Helper()
	cmd := x.Command(context.Background(), args...)
	p := &liveProc{t: x.t, cmd: cmd, exited: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		x.t.Fatal(err)
	}
	cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	if err := cmd.Start(); err != nil {
		x.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			p.mu.Lock()
			p.stdout.Write(line)
			p.stdout.WriteByte('\n')
			var e event.Event
			if json.Unmarshal(line, &e) == nil && e.Type != "" {
				p.events = append(p.events, e)
			}
			p.mu.Unlock()
		}
		err := cmd.Wait()
		p.mu.Lock()
		p.code = cmd.ProcessState.ExitCode()
		if err != nil && p.code == 0 {
			p.code = -1
		}
		p.mu.Unlock()
		close(p.exited)
	}()
	x.t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// WaitEvent waits until an event matching pred has been printed.
func (p *liveProc) WaitEvent(what string, timeout time.Duration, pred func(event.Event) bool) event.Event {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		for _, e := range p.events {
			if pred(e) {
				p.mu.Unlock()
				return e
			}
		}
		p.mu.Unlock()
		select {
		case <-p.exited:
			p.t.Fatalf("tandem exited before %s\nstdout:\n%s\nstderr:\n%s", what, p.Stdout(), p.Stderr())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s within %v\nstdout:\n%s\nstderr:\n%s", what, timeout, p.Stdout(), p.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Wait waits for the process to exit and returns what it printed.
func (p *liveProc) Wait(timeout time.Duration) runResult {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.t.Fatalf("tandem still running after %v\nstdout:\n%s\nstderr:\n%s", timeout, p.Stdout(), p.Stderr())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return runResult{Stdout: p.stdout.String(), Stderr: p.stderr.String(), Code: p.code, Events: append([]event.Event(nil), p.events...)}
}

func (p *liveProc) Signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

func (p *liveProc) Stdout() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stdout.String() }
func (p *liveProc) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stderr.String() }

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// pidsWithArg lists processes whose command line contains marker (Linux
// /proc; the test is skipped elsewhere).
func pidsWithArg(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("needs /proc")
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) && !isZombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killAtCleanup kills, when the test ends, every process whose command
// line holds marker: what a killed or interrupted tandem left running
// (its own process group outlives it).
func killAtCleanup(t *testing.T, marker string) {
	t.Cleanup(func() {
		for _, pid := range pidsWithArg(t, marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// sleepStarted waits until the `sleep MARKER` a tool call runs has
// started, and kills it when the test ends, whatever became of its tandem.
func sleepStarted(t *testing.T, marker string) {
	t.Helper()
	waitFor(t, "sleep "+marker+" to start", 20*time.Second, func() bool { return len(pidsWithArg(t, marker)) > 0 })
	killAtCleanup(t, marker)
}

// sleepGone waits until no `sleep MARKER` is left.
func sleepGone(t *testing.T, marker string) {
	t.Helper()
	waitFor(t, "sleep "+marker+" to be killed", 10*time.Second, func() bool { return len(pidsWithArg(t, marker)) == 0 })
}

// sleepMarker is a sleep duration unique to a test, so its process can be
// found in /proc ("sleep 30.xxxxxxxxx"): nine digits of the clock's
// nanoseconds, so tests running in parallel (and other test processes on
// the machine) do not share one.
func sleepMarker() string {
	return fmt.Sprintf("30.%09d", time.Now().UnixNano()%1_000_000_000)
}

// exported is `tandem sessions export` parsed.
type exported struct {
	Session  map[string]any    `json:"session"`
	Messages []message.Message `json:"messages"`
}

func (x *e2e) Export(id string) (exported, runResult) {
	x.t.Helper()
	r := x.Run("sessions", "export", id)
	var ex exported
	if r.Code == 0 {
		if err := json.Unmarshal([]byte(r.Stdout), &ex); err != nil {
			x.t.Fatalf("sessions export %s: %v\n%s", id, err, r.Stdout)
		}
	}
	return ex, r
}

// reqSystem is the recorded request's system prompt as one string
// (Anthropic "system" string or blocks, or OpenAI system messages).
func reqSystem(r scripted.Request) string {
	var sb strings.Builder
	switch s := r.Body["system"].(type) {
	case string:
		sb.WriteString(s)
	case []any:
		for _, b := range s {
			if m, ok := b.(map[string]any); ok {
				txt, _ := m["text"].(string)
				sb.WriteString(txt + "\n")
			}
		}
	}
	for _, m := range r.Messages() {
		mm, _ := m.(map[string]any)
		if role, _ := mm["role"].(string); role == "system" || role == "developer" {
			sb.WriteString(contentText(mm["content"]) + "\n")
		}
	}
	return sb.String()
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var sb strings.Builder
		for _, b := range v {
			if m, ok := b.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					sb.WriteString(s)
				}
			}
		}
		return sb.String()
	}
	return ""
}

// reqTools lists the tool names a recorded request offered.
func reqTools(r scripted.Request) []string {
	var out []string
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if n, ok := m["name"].(string); ok {
			out = append(out, n)
		} else if f, ok := m["function"].(map[string]any); ok {
			n, _ := f["name"].(string)
			out = append(out, n)
		}
	}
	return out
}

// anthropicBlocks returns a recorded Anthropic message's content blocks.
func anthropicBlocks(m any) (role string, blocks []map[string]any) {
	mm, _ := m.(map[string]any)
	role, _ = mm["role"].(string)
	switch c := mm["content"].(type) {
	case string:
		blocks = append(blocks, map[string]any{"type": "text", "text": c})
	case []any:
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok {
				blocks = append(blocks, bm)
			}
		}
	}
	return role, blocks
}

// checkToolPairs fails unless every tool_use in an Anthropic request is
// answered by a tool_result in the message right after it, and no
// tool_result is orphaned.
func checkToolPairs(t *testing.T, r scripted.Request) {
	t.Helper()
	msgs := r.Messages()
	seen := map[string]bool{}
	for i, m := range msgs {
		role, blocks := anthropicBlocks(m)
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				id, _ := b["tool_use_id"].(string)
				if !seen[id] {
					t.Errorf("message %d: tool_result %s without a tool_use before it", i, id)
				}
			}
		}
		if role != "assistant" {
			continue
		}
		var next []map[string]any
		if i+1 < len(msgs) {
			_, next = anthropicBlocks(msgs[i+1])
		}
		for _, b := range blocks {
			if b["type"] != "tool_use" {
				continue
			}
			id, _ := b["id"].(string)
			seen[id] = true
			found := false
			for _, nb := range next {
				if nb["type"] == "tool_result" && nb["tool_use_id"] == id {
					found = true
				}
			}
			if !found {
				t.Errorf("message %d: tool_use %s has no tool_result in the next message\n%s", i, id, r.RawBody)
			}
		}
	}
}

// eventsOf filters events by type.
func eventsOf(r runResult, typ event.Type) []event.Event {
	var out []event.Event
	for _, e := range r.Events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// lastMain is the last non-side completion request the server received.
func (x *e2e) lastMain() scripted.Request {
	x.t.Helper()
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 {
		x.t.Fatal("the scripted server received no completion request")
	}
	return reqs[len(reqs)-1]
}
