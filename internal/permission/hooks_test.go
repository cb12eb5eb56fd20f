package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	e := NewEngine(EngineOptions{WorkDir: work, Asker: a, Hooks: hook("echo 'no deploys' >&2; exit 2")})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Deny || !strings.Contains(d.Message, "no deploys") {
		t.Errorf("exit 2: %+v", d)
	}
	allow := hook(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	e = NewEngine(EngineOptions{WorkDir: work, Asker: a, Hooks: allow, UserRules: deny})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "make deploy"}); got != "A" {
		t.Errorf("hook allow must skip the prompt: %s", got)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "curl x"}); d.Behavior != Deny {
		t.Errorf("hook allow must not override a deny rule: %+v", d)
	}
	e = NewEngine(EngineOptions{WorkDir: work, Asker: a, Hooks: hook(`echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`)})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "ls"}); got != "Q" {
		t.Errorf("hook ask must prompt: %s", got)
	}
	// updatedInput is judged, and returned.
	e = NewEngine(EngineOptions{WorkDir: work, Asker: a, UserRules: deny,
		Hooks: hook(`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"curl evil"}}}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Deny {
		t.Errorf("rewritten input must be judged: %+v", d)
	}
	e = NewEngine(EngineOptions{WorkDir: work, Asker: a, Hooks: hook(`echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -l"}}}'`)})
	if d := check(t, e, "Bash", map[string]string{"command": "ls"}); d.Behavior != Allow || string(d.UpdatedInput) != `{"command":"ls -l"}` {
		t.Errorf("updated input: %+v", d)
	}
}
