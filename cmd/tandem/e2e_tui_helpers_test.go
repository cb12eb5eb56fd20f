package main

// The terminal UI's end-to-end harness: the real binary in a real tmux
// pane (its own tmux server per test), keys sent with send-keys and the
// screen read with capture-pane.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type tmuxPane struct {
	t      *testing.T
	socket string
	x      *e2e
}

// startTUI runs tandem with args in a width x height tmux pane. When
// tandem exits, the pane prints its exit status and stays, so the test can
// look at the restored terminal.
func (x *e2e) startTUI(width, height int, args ...string) *tmuxPane {
	x.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		x.t.Skip("tmux is not installed: the terminal UI tests need it (apt-get install tmux; .ci/run installs it)")
	}
	p := &tmuxPane{t: x.t, socket: fmt.Sprintf("tandem-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), x: x}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for _, kv := range x.Command(context.Background()).Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "" || strings.ContainsAny(k, " ()") || k == "TMUX" || k == "TMUX_PANE" {
			continue
		}
		fmt.Fprintf(&script, "export %s=%s\n", k, shellQuote(v))
	}
	script.WriteString("export TERM=xterm-256color\n")
	fmt.Fprintf(&script, "cd %s\n%s", shellQuote(x.Work), shellQuote(x.Binary))
	for _, a := range args {
		script.WriteString(" " + shellQuote(a))
	}
	script.WriteString("\necho \"TANDEM-EXITED:$?\"\nsleep 600\n")
	path := filepath.Join(x.t.TempDir(), "run.sh")
	if err := os.WriteFile(path, []byte(script.String()), 0o755); err != nil {
		x.t.Fatal(err)
	}
	p.tmux("new-session", "-d", "-s", "t", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), path)
	x.t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the pane's visible text (wrapped lines joined).
func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-J", "-t", "t") }

// keys sends tmux key names (Enter, Escape, C-c, BTab) or literal text.
func (p *tmuxPane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "t"}, keys...)...) }

// typeText types literally (no key-name lookup).
func (p *tmuxPane) typeText(s string) { p.tmux("send-keys", "-t", "t", "-l", s) }

// waitFor polls the screen until cond holds (20 s: the machine may be busy).
func (p *tmuxPane) waitFor(what string, cond func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *tmuxPane) waitText(s string) string {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("%q", s), func(scr string) bool { return strings.Contains(scr, s) })
}

// flag reads a pane format variable, e.g. alternate_on.
func (p *tmuxPane) flag(name string) string {
	return strings.TrimSpace(p.tmux("display-message", "-p", "-t", "t", "#{"+name+"}"))
}
