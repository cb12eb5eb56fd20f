package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/tool"
)

// sandboxedEnvRec is a session whose commands run in the sandbox (the
// workspace is writable, home/.ssh unreadable) and its event recorder.
func sandboxedEnvRec(t *testing.T) (env *tool.Env, home string, rec *recorder) {
	t.Helper()
	env, rec = newTestEnv(t)
	home = t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Policy{WriteRoots: []string{env.WorkDir}, TempDir: t.TempDir(),
		DenyRead: []string{filepath.Join(home, ".ssh")}}, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	env.Sandbox = sb
	return env, home, rec
}

func TestBashInSandbox(t *testing.T) {
	env, home, rec := sandboxedEnvRec(t)
	ctx := context.Background()
	outside := filepath.Join(filepath.Dir(env.WorkDir), "outside.txt")
	for _, cmd := range []string{"cat " + home + "/.ssh/id_rsa", "echo x > ../outside.txt",
		"python3 -c \"open('" + home + "/evil.txt', 'w').write('x')\""} {
		res := run(t, ctx, NewBash(), env, map[string]any{"command": cmd})
		if !res.IsError && !strings.Contains(res.Content, "ermission denied") {
			t.Errorf("%s: not refused: %q", cmd, res.Content)
		}
		if strings.Contains(res.Content, "PRIVATE KEY") {
			t.Errorf("%s: the key leaked: %q", cmd, res.Content)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("../outside.txt was written")
	}
	if _, err := os.Stat(filepath.Join(home, "evil.txt")); err == nil {
		t.Error("python3 wrote into home")
	}
	// Each refusal is a sandbox_denial event naming the path and the rule.
	rules := map[string]string{}
	evs, _ := rec.snapshot()
	for _, e := range evs {
		if e.Type == event.SandboxDenial {
			rules[e.Meta["path"].(string)] = e.Meta["rule"].(string)
		}
	}
	if rules[filepath.Join(home, ".ssh", "id_rsa")] != sandbox.RuleSecret || rules[outside] != sandbox.RuleWriteOutside ||
		rules[filepath.Join(home, "evil.txt")] != sandbox.RuleWriteOutside {
		t.Errorf("sandbox_denial events: %v", rules)
	}
	res := run(t, ctx, NewBash(), env, map[string]any{"command": "echo ok > inside.txt && cat inside.txt && cd sub 2>/dev/null; pwd"})
	if res.IsError || !strings.Contains(res.Content, "ok") {
		t.Errorf("inside the workspace: %+v", res)
	}
	// Asked and allowed to leave: it runs outside.
	res = run(t, ctx, NewBash(), env, map[string]any{"command": "cat " + home + "/.ssh/id_rsa", "dangerouslyDisableSandbox": true})
	if !strings.Contains(res.Content, "PRIVATE KEY") {
		t.Errorf("outside the sandbox: %q", res.Content)
	}
}

func TestBackgroundJobInSandbox(t *testing.T) {
	env, home, rec := sandboxedEnvRec(t)
	ctx := context.Background()
	res := run(t, ctx, NewBash(), env, map[string]any{"command": "cat " + home + "/.ssh/id_rsa; echo x > ../outside.txt; echo done", "run_in_background": true})
	id, _ := res.Meta["bash_id"].(string)
	var out string
	waitFor(t, "the job's end", func() bool {
		r := run(t, ctx, NewBashOutput(), env, map[string]any{"bash_id": id})
		out += r.Content
		return strings.Contains(out, "done")
	})
	if strings.Contains(out, "PRIVATE KEY") || strings.Count(out, "ermission denied") < 2 {
		t.Errorf("background job not confined: %q", out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(env.WorkDir), "outside.txt")); err == nil {
		t.Error("../outside.txt was written")
	}
	// Each refusal is a sandbox_denial event once the job has ended.
	rules := map[string]string{}
	waitFor(t, "the job's sandbox_denial events", func() bool {
		evs, _ := rec.snapshot()
		for _, e := range evs {
			if e.Type == event.SandboxDenial {
				rules[e.Meta["path"].(string)] = e.Meta["rule"].(string)
			}
		}
		return len(rules) >= 2
	})
	if rules[filepath.Join(home, ".ssh", "id_rsa")] != sandbox.RuleSecret || rules[filepath.Join(filepath.Dir(env.WorkDir), "outside.txt")] != sandbox.RuleWriteOutside {
		t.Errorf("sandbox_denial events: %v", rules)
	}
}
