package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A base URL variable without http:// used to be retried six times over
// half a minute ("unsupported protocol scheme"); it is refused at start,
// by name.
func TestE2ERunBadBaseURLEnv(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"} {
		t.Run(v, func(t *testing.T) {
			x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
			x.Env = append(x.Env, v+"=localhost:8080")
			r := x.RunStream("hi")
			if r.Code == 0 {
				t.Fatal("a base URL without a scheme was accepted")
			}
			if !strings.Contains(r.Stderr, v) || !strings.Contains(r.Stderr, "localhost:8080") {
				t.Errorf("stderr should name %s and its value:\n%s", v, r.Stderr)
			}
			for _, e := range r.Events {
				if e.Type == event.Retry {
					t.Errorf("retried: %+v", e)
				}
			}
		})
	}
}

// A config problem found while equipping the session used to leave an
// empty stored session that a later --continue resumed.
func TestE2ERunConfigErrorStoresNoSession(t *testing.T) {
	cases := []struct{ name, file, body, want string }{
		{"bad rule", ".tandem/config.json", `{"permissions":{"deny":["Bash(unclosed"]}}`, "permissions.deny[0]"},
		{"bad claude settings", ".claude/settings.json", `{"permissions": [`, "settings.json"},
		{"bad hooks", ".tandem/config.json", `{"permissions":{"hooks":{"Bogus":[]}}}`, "Bogus"},
		{"bad claude_code", ".tandem/config.json", `{"claude_code":{"first_byte_timeout":"-5s"}}`, "first_byte_timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
			x.WriteFile(c.file, c.body)
			// Trusted, so that every key is read (an untrusted folder's hooks
			// are left out unread).
			r := x.RunStream("hi", "--trust-project")
			if r.Code == 0 || !strings.Contains(r.Stderr, c.want) {
				t.Fatalf("exit %d, stderr should name %q:\n%s", r.Code, c.want, r.Stderr)
			}
			if ls := x.Run("sessions", "list", "--json"); strings.Contains(ls.Stdout, `"id"`) {
				t.Fatalf("a failed start stored a session:\n%s", ls.Stdout)
			}
			if err := os.Remove(filepath.Join(x.Work, c.file)); err != nil {
				t.Fatal(err)
			}
			if r := x.RunStream("again", "--continue"); r.Code == 0 || !strings.Contains(r.Stderr, "no earlier session") {
				t.Errorf("--continue found a session: exit %d\n%s", r.Code, r.Stderr)
			}
		})
	}
}
