package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

func TestPreToolUseHooksInCheck(t *testing.T) {
	work := t.TempDir()
	hook := func(body string) *hooks.Runner {
		p := filepath.Join(t.TempDir(), "h.sh")
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return hooks.NewRunner(hooks.Config{hooks.PreToolUse: {{Matcher: "Bash", Hooks: []hooks.Handler{{Type: "command", Command: p}}}}}, work, nil)
	}
	a := &recordingAsker{}
	deny := mustRules(t, ActionDeny, "Bash(curl:*)")

	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: hook("echo 'no deploys' >&2; exit 2")})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Deny || !strings.Contains(d.Message, "no deploys") {
		t.Errorf("exit 2: %+v", d)
	}
	allow := hook(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: allow, UserRules: deny})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "make deploy"}); got != "A" {
		t.Errorf("hook allow must skip the prompt: %s", got)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "curl x"}); d.Behavior != Deny {
		t.Errorf("hook allow must not override a deny rule: %+v", d)
	}
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: hook(`echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`)})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "ls"}); got != "Q" {
		t.Errorf("hook ask must prompt: %s", got)
	}
	// updatedInput is judged, and returned.
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, UserRules: deny,
		Hooks: hook(`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"curl evil"}}}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Deny {
		t.Errorf("rewritten input must be judged: %+v", d)
	}
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: hook(`echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -l"}}}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Allow || string(d.UpdatedInput) != `{"command":"ls -l"}` {
		t.Errorf("updated input: %+v", d)
	}
}

// PermissionRequest hooks answer an ask before anyone is asked; their
// rewritten input is judged again. Notification hooks hear about the ask.
func TestPermissionRequestAndNotificationHooks(t *testing.T) {
	work := t.TempDir()
	runner := func(event, body string) *hooks.Runner {
		p := filepath.Join(t.TempDir(), "h.sh")
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return hooks.NewRunner(hooks.Config{event: {{Matcher: "Bash", Hooks: []hooks.Handler{{Type: "command", Command: p}}}}}, work, nil)
	}
	a := &recordingAsker{}
	allow := runner(hooks.PermissionRequest, `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`)
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: allow})
	if got, d := verdictOf(t, e, a, "Bash", map[string]string{"command": "make deploy"}); got != "A" || d.Rule != "hook:PermissionRequest" {
		t.Errorf("hook allow must answer the ask: %s %+v", got, d)
	}
	// Without anyone to ask, the hook still answers (headless runs).
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Hooks: allow})
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy"}); d.Behavior != Allow {
		t.Errorf("headless hook allow: %+v", d)
	}
	// An allowed call needs no ask, so the hook is not consulted.
	deny := runner(hooks.PermissionRequest, "echo 'not today' >&2; exit 2")
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: deny})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Allow {
		t.Errorf("allowed call reached the hook: %+v", d)
	}
	if got, d := verdictOf(t, e, a, "Bash", map[string]string{"command": "make deploy"}); got != "D" || !strings.Contains(d.Message, "not today") {
		t.Errorf("hook deny: %s %+v", got, d)
	}
	seen := filepath.Join(work, "permreq.json")
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: runner(hooks.PermissionRequest, "cat > "+seen)})
	verdictOf(t, e, a, "Bash", map[string]string{"command": "npm install"})
	if data, _ := os.ReadFile(seen); !strings.Contains(string(data), `"permission_suggestions":[{"behavior":"allow","destination":"session","rules":[{"toolName":"Bash","ruleContent":"npm install:*"}],"type":"addRules"}]`) {
		t.Errorf("PermissionRequest input: %s", data)
	}
	rewrite := runner(hooks.PermissionRequest, `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"curl evil"}}}}'`)
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: rewrite, UserRules: mustRules(t, ActionDeny, "Bash(curl:*)")})
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy"}); d.Behavior != Deny {
		t.Errorf("rewritten input must be judged: %+v", d)
	}

	marker := filepath.Join(work, "notified.json")
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, Hooks: hooks.NewRunner(hooks.Config{hooks.Notification: {{Matcher: "permission_prompt",
		Hooks: []hooks.Handler{{Type: "command", Command: "cat > " + marker + ".tmp && mv " + marker + ".tmp " + marker}}}}}, work, nil)})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "make deploy"}); got != "Q" {
		t.Fatalf("want an ask, got %s", got)
	}
	var data []byte
	// The notification hook runs in the background: give a loaded machine
	// plenty of time to start it.
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if data, _ = os.ReadFile(marker); len(data) > 0 {
			break
		}
	}
	if !strings.Contains(string(data), `"notification_type":"permission_prompt"`) || !strings.Contains(string(data), "make deploy") {
		t.Errorf("notification input: %q", data)
	}
}

// "continue": false from PreToolUse, and a PermissionRequest deny with
// interrupt, deny the call and end the turn.
func TestHookInterrupts(t *testing.T) {
	work := t.TempDir()
	runner := func(event, body string) *hooks.Runner {
		p := filepath.Join(t.TempDir(), "h.sh")
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return hooks.NewRunner(hooks.Config{event: {{Hooks: []hooks.Handler{{Type: "command", Command: p}}}}}, work, nil)
	}
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Hooks: runner(hooks.PreToolUse, `echo '{"continue":false,"stopReason":"out of budget"}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Deny || !d.Interrupt || !strings.Contains(d.Message, "out of budget") {
		t.Errorf("PreToolUse continue:false: %+v", d)
	}
	e = NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: &recordingAsker{}, Hooks: runner(hooks.PermissionRequest,
		`echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"stop here","interrupt":true}}}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy"}); d.Behavior != Deny || !d.Interrupt {
		t.Errorf("PermissionRequest interrupt: %+v", d)
	}
}

// A PermissionRequest allow's updatedPermissions apply as Claude Code's
// accepted suggestions: addRules adds a session rule (the next call is
// allowed without the hook), setMode changes the mode, and a switch to
// trust (bypassPermissions) is refused.
func TestPermissionRequestUpdatedPermissions(t *testing.T) {
	work := t.TempDir()
	count := filepath.Join(work, "count")
	p := filepath.Join(t.TempDir(), "h.sh")
	os.WriteFile(p, []byte("#!/bin/sh\necho x >> "+count+"\n"+`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[`+
		`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make deploy:*"}],"behavior":"allow","destination":"session"},`+
		`{"type":"setMode","mode":"acceptEdits","destination":"session"},{"type":"setMode","mode":"bypassPermissions","destination":"session"}]}}}'`), 0o755)
	r := hooks.NewRunner(hooks.Config{hooks.PermissionRequest: {{Hooks: []hooks.Handler{{Type: "command", Command: p}}}}}, work, nil)
	var errs []string
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Hooks: r, Emit: func(ev event.Event) {
		if ev.Type == event.Error {
			errs = append(errs, ev.Error)
		}
	}})
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy"}); d.Behavior != Allow {
		t.Fatalf("hook allow: %+v", d)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy prod"}); d.Behavior != Allow {
		t.Errorf("the added rule does not allow: %+v", d)
	}
	if data, _ := os.ReadFile(count); strings.Count(string(data), "x") != 1 {
		t.Errorf("the hook ran %d times, want once (the rule answers the second call)", strings.Count(string(data), "x"))
	}
	if e.Mode() != AcceptEdits {
		t.Errorf("mode %s, want acceptEdits", e.Mode())
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "bypassPermissions") {
		t.Errorf("errors %q, want the refused bypassPermissions", errs)
	}
}
