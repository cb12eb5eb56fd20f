package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// Commands never see tandem's credentials, and a secret value a command
// prints anyway (read from a file) is blanked in the result, the streamed
// events, the spill file and background job output.
func TestCommandsDoNotSeeSecrets(t *testing.T) {
	vals := map[string]string{
		"ANTHROPIC_API_KEY":     "sk-ant-test-0123456789abcdef",
		"OPENAI_API_KEY":        "sk-openai-test-0123456789",
		"TANDEM_TOKEN":          "tandem-token-0123456789",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789",
		"MY_DB_PASSWORD":        "db-password-0123456789",
		"KEEP_ME":               "visible-value-0123",
	}
	for k, v := range vals {
		t.Setenv(k, v)
	}
	env, rec := newTestEnv(t)
	secretFile := filepath.Join(env.WorkDir, ".env")
	os.WriteFile(secretFile, []byte("ANTHROPIC_API_KEY="+vals["ANTHROPIC_API_KEY"]+"\n"), 0o600)
	bash := NewBashWith(Options{Secrets: secrets.New([]string{"MY_DB_PASSWORD"}, nil)})
	// Big output forces the spill file too.
	cmd := "env; printenv ANTHROPIC_API_KEY; jq -n env 2>/dev/null; cat .env; head -c 40000 /dev/zero | tr '\\0' x; echo; cat .env"
	res := run(t, context.Background(), bash, env, map[string]any{"command": cmd})
	texts := []string{res.Content}
	evs, _ := rec.snapshot()
	var streamed strings.Builder
	for _, e := range evs {
		streamed.WriteString(e.Output)
	}
	texts = append(texts, streamed.String())
	if p, _ := res.Meta["spill_path"].(string); p != "" {
		b, _ := os.ReadFile(p)
		texts = append(texts, string(b))
	} else {
		t.Errorf("expected a spill file: %v", res.Meta)
	}
	for i, text := range texts {
		for k, v := range vals {
			if k == "KEEP_ME" {
				continue
			}
			if strings.Contains(text, v) || strings.Contains(text, k+"=") && k != "ANTHROPIC_API_KEY" {
				t.Errorf("output %d shows %s", i, k)
			}
		}
		if !strings.Contains(text, "KEEP_ME=visible-value-0123") {
			t.Errorf("output %d lost an ordinary variable", i)
		}
		if !strings.Contains(text, "ANTHROPIC_API_KEY=[REDACTED]") {
			t.Errorf("output %d: the key read from .env was not redacted", i)
		}
	}

	// Background jobs too.
	bg := run(t, context.Background(), bash, env, map[string]any{"command": "env; cat .env", "run_in_background": true})
	id, _ := bg.Meta["bash_id"].(string)
	deadline := time.Now().Add(10 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		r := run(t, context.Background(), NewBashOutput(), env, map[string]any{"bash_id": id})
		out += r.Content
		if strings.Contains(r.Content, "exited") || strings.Contains(r.Content, "completed") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for k, v := range vals {
		if k != "KEEP_ME" && strings.Contains(out, v) {
			t.Errorf("background output shows %s", k)
		}
	}
	if !strings.Contains(out, "KEEP_ME=") {
		t.Errorf("background output: %s", out)
	}

	// The user may let a credential through (it is still blanked if printed).
	pass := NewBashWith(Options{Secrets: secrets.New(nil, []string{"OPENAI_API_KEY"})})
	r := run(t, context.Background(), pass, env, map[string]any{"command": `test -n "$OPENAI_API_KEY" && echo has-key; printenv OPENAI_API_KEY`})
	if !strings.Contains(r.Content, "has-key") || strings.Contains(r.Content, vals["OPENAI_API_KEY"]) {
		t.Errorf("pass_env: %s", r.Content)
	}
}
