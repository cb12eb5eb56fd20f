package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// With the sandbox on and trust mode, tandem's file tools keep the
// boundary the kernel keeps for commands: a secret path is neither read
// (directly, through a link in the workspace, or by a search of the home
// folder) nor written, nothing is written outside the writable folders,
// and each refusal is a sandbox_denial event naming the rule.
func TestE2ESandboxFileTools(t *testing.T) {
	t.Parallel()
	x := newE2EFor(t, func(work string) scripted.Script {
		home := filepath.Join(filepath.Dir(work), "home")
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("read", "Read", map[string]any{"file_path": filepath.Join(home, ".ssh", "id_rsa")})),
			scripted.ToolStep(scripted.CallID("link", "Read", map[string]any{"file_path": filepath.Join(work, "key")})),
			scripted.ToolStep(scripted.CallID("grep", "Grep", map[string]any{"pattern": "PRIVATE", "path": home, "output_mode": "content"})),
			scripted.ToolStep(scripted.CallID("out", "Write", map[string]any{"file_path": filepath.Join(work, "..", "outside.txt"), "content": "x"})),
			scripted.ToolStep(scripted.CallID("ssh", "Write", map[string]any{"file_path": filepath.Join(home, ".ssh", "authorized_keys"), "content": "x"})),
			scripted.ToolStep(scripted.CallID("in", "Write", map[string]any{"file_path": filepath.Join(work, "in.txt"), "content": "inside"})),
			scripted.TextStep("Done."),
		}}
	})
	os.MkdirAll(filepath.Join(x.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(x.Home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	os.Symlink(filepath.Join(x.Home, ".ssh", "id_rsa"), filepath.Join(x.Work, "key"))
	r := x.RunStream("try", "--permission-mode", "trust", "--sandbox")
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	mustSucceed(t, r)
	if strings.Contains(r.Stdout, "PRIVATE KEY") {
		t.Errorf("the secret reached the stream")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(x.Work), "outside.txt")); err == nil {
		t.Errorf("Write wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(x.Home, ".ssh", "authorized_keys")); err == nil {
		t.Errorf("Write wrote into ~/.ssh")
	}
	if x.ReadFile("in.txt") != "inside" {
		t.Errorf("Write inside the workspace did not work")
	}
	results := toolResults(r)
	for _, id := range []string{"read", "link", "grep", "out", "ssh"} {
		if res := results[id]; !res.IsError || !strings.Contains(res.Output, "the sandbox refused") {
			t.Errorf("%s: %+v; want refused by the sandbox", id, res)
		}
	}
	rules := map[string]string{}
	for _, e := range r.Events {
		if e.Type == event.SandboxDenial {
			rules[e.ToolUseID], _ = e.Meta["rule"].(string)
		}
	}
	want := map[string]string{"read": "sandbox: secret path (not readable)", "link": "sandbox: secret path (not readable)",
		"grep": "sandbox: secret path (not readable)", "out": "sandbox: outside the writable folders", "ssh": "sandbox: secret path (not readable)"}
	for id, rule := range want {
		if rules[id] != rule {
			t.Errorf("sandbox_denial of %s: %q; want %q (all: %v)", id, rules[id], rule, rules)
		}
	}
}
