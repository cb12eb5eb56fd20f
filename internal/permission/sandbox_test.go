package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestSandboxedBash(t *testing.T) {
	work := t.TempDir()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(work, ".git", "hooks"), 0o755)
	deny, _ := ParseRule("Bash(rm -rf *)", ActionDeny)
	ask, _ := ParseRule("Bash(make deploy)", ActionAsk)
	bash := func(cmd string, leave bool) Request {
		in, _ := json.Marshal(map[string]any{"command": cmd, "dangerouslyDisableSandbox": leave})
		return Request{Tool: "Bash", Input: in, Cwd: work}
	}
	cases := []struct {
		mode    Mode
		cmd     string
		leave   bool
		want    Behavior
		wantRul string
	}{
		{Normal, "python3 build.py", false, Allow, "sandbox"},
		{Normal, "echo x > ../outside.txt", false, Allow, "sandbox"},
		{Trust, "cat ~/.ssh/id_rsa", false, Allow, "sandbox"},
		{Normal, "ls", false, Allow, "read-only"},
		{Normal, "rm -rf build", false, Deny, ""},                   // deny rule
		{Normal, "make deploy", false, Deny, ""},                    // ask rule, nobody to ask
		{Normal, "echo x > .git/hooks/pre-commit", false, Deny, ""}, // protected path asks
		{Explore, "python3 build.py", false, Deny, ""},              // explore stays read-only
		{Trust, "ls", true, Deny, ""},                               // leaving always asks
		{Normal, "python3 build.py", true, Deny, ""},
	}
	for _, c := range cases {
		e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, HomeDir: home, Mode: c.mode, Sandboxed: true,
			UserRules: []Rule{deny, ask}})
		d, err := e.Check(context.Background(), bash(c.cmd, c.leave))
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != c.want || (c.wantRul != "" && d.Rule != c.wantRul) {
			t.Errorf("%s %q leave=%v: %s rule %q (%s); want %s %q", c.mode, c.cmd, c.leave, d.Behavior, d.Rule, d.Message, c.want, c.wantRul)
		}
	}
	// Without the sandbox, the first case asks (here: denied, nobody to ask).
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, HomeDir: home})
	if d, _ := e.Check(context.Background(), bash("python3 build.py", false)); d.Behavior != Deny {
		t.Errorf("unsandboxed python3: %s, want asked (denied without an asker)", d.Behavior)
	}
}
