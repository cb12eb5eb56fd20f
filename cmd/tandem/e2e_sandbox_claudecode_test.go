package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// The claude CLI runs inside the sandbox under the claude-code runtime: a
// turn works (the CLI reaches its provider, a loopback scripted server,
// through the sandbox's loopback forward and proxy, and writes its own
// state), and a command the CLI runs that reads a secret of the home
// folder is refused by the kernel. With CLAUDE_CONFIG_DIR and without
// (the CLI then keeps ~/.claude and ~/.claude.json).
func TestE2ESandboxClaudeCode(t *testing.T) {
	t.Parallel()
	t.Run("config_dir", func(t *testing.T) { testSandboxClaudeCode(t, true) })
	t.Run("home", func(t *testing.T) { testSandboxClaudeCode(t, false) })
}

func testSandboxClaudeCode(t *testing.T, configDir bool) {
	x := newClaudeCodeE2E(t, func(work string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("key", "Bash", map[string]any{"command": "cat ~/.ssh/id_rsa; echo x > ../outside-cli.txt; echo in > in.txt"})),
			scripted.TextStep("Done."),
		}}
	})
	if !configDir {
		x.Env = slices.DeleteFunc(x.Env, func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") })
	}
	os.MkdirAll(filepath.Join(x.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(x.Home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	r := x.RunDetached(streamArgs("read the key", "--runtime", "claude-code", "--permission-mode", "trust", "--sandbox")...)
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	mustSucceed(t, r)
	if res := r.Result(); res.IsError || !strings.Contains(res.Result, "Done.") {
		t.Fatalf("the turn did not finish: %+v\nstderr: %s", res, r.Stderr)
	}
	out := toolResults(r)["key"].Output
	if strings.Contains(r.Stdout, "PRIVATE KEY") || !strings.Contains(out, "Permission denied") {
		t.Errorf("the secret read was not refused by the kernel: %q", out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(x.Work), "outside-cli.txt")); err == nil {
		t.Errorf("the CLI's command wrote outside the workspace")
	}
	if x.ReadFile("in.txt") != "in\n" {
		t.Errorf("the CLI's command did not write inside the workspace: %q", out)
	}
	denied := map[string]bool{}
	for _, e := range r.Events {
		if e.Type == event.SandboxDenial {
			denied[e.Meta["rule"].(string)] = true
		}
	}
	if !denied["sandbox: secret path (not readable)"] || !denied["sandbox: outside the writable folders"] {
		t.Errorf("sandbox_denial events: %v", denied)
	}
}
