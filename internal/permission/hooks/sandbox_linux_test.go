package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// The test binary is also the sandbox's launcher (tandem's __sandbox-exec).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// A command hook in the sandbox cannot read a secret.
func TestHookInSandboxCannotReadSecret(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_rsa")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Policy{WriteRoots: []string{dir}, DenyRead: []string{filepath.Dir(secret)}}, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	h := script(t, dir, "h.sh", "cat "+secret+" > "+filepath.Join(dir, "copy.txt")+" 2> "+filepath.Join(dir, "err.txt")+"\nexit 0\n")
	r := NewRunner(Config{SessionStart: {{Hooks: cmd(h)}}}, dir, nil)
	r.SetConfine(sb.Confine)
	if _, err := r.Run(context.Background(), Input{HookEventName: SessionStart}); err != nil {
		t.Fatal(err)
	}
	copied, _ := os.ReadFile(filepath.Join(dir, "copy.txt"))
	errText, _ := os.ReadFile(filepath.Join(dir, "err.txt"))
	if strings.Contains(string(copied), "PRIVATE KEY") || !strings.Contains(string(errText), "ermission denied") {
		t.Errorf("hook read the secret: copy %q, stderr %q", copied, errText)
	}
}

// What the sandbox refused a hook reaches SetDenials' report: its output
// names the path.
func TestHookSandboxDenialsReported(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_rsa")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Policy{WriteRoots: []string{dir}, DenyRead: []string{filepath.Dir(secret)}}, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	h := script(t, dir, "h.sh", "cat "+secret+"\nexit 0\n")
	r := NewRunner(Config{SessionStart: {{Hooks: cmd(h)}}}, dir, nil)
	r.SetConfine(sb.Confine)
	var rules []string
	r.SetDenials(func(output, d string) {
		for _, ev := range sb.DenialEvents(output, d) {
			rules = append(rules, ev.Meta["path"].(string)+" "+ev.Meta["rule"].(string))
		}
	})
	if _, err := r.Run(context.Background(), Input{HookEventName: SessionStart}); err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0] != secret+" "+sandbox.RuleSecret {
		t.Errorf("denials reported: %v", rules)
	}
}
