package secrets

import (
	"bytes"
	"strings"
	"testing"
)

func TestScrubEnvAndPass(t *testing.T) {
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant-123456789", "OPENAI_API_KEY=sk-openai-abcdefgh",
		"TANDEM_TOKEN=tok-abcdefghij", "MY_PROVIDER_KEY=zzzzzzzzzz", "AWS_SECRET_ACCESS_KEY=aws-secret-value", "HOME=/h"}
	got := strings.Join(New([]string{"MY_PROVIDER_KEY"}, []string{"OPENAI_API_KEY"}).ScrubEnv(env), " ")
	if got != "PATH=/bin OPENAI_API_KEY=sk-openai-abcdefgh HOME=/h" {
		t.Errorf("scrubbed env: %s", got)
	}
	if d := strings.Join(Policy{}.ScrubEnv(env), " "); strings.Contains(d, "sk-ant") || !strings.Contains(d, "MY_PROVIDER_KEY") {
		t.Errorf("zero policy: %s", d)
	}
}

func TestRedactStreamSplitValues(t *testing.T) {
	r := New(nil, nil).Redactor([]string{"ANTHROPIC_API_KEY=sk-ant-SECRET-0123456789", "TANDEM_TOKEN=short", "OPENAI_API_KEY=sk-openai-XYZXYZXYZ"})
	text := "key sk-ant-SECRET-0123456789 and sk-openai-XYZXYZXYZ; short stays"
	if got := r.Redact(text); got != "key [REDACTED] and [REDACTED]; short stays" {
		t.Errorf("Redact: %q", got)
	}
	// Split at every position: the stream is still redacted.
	for cut := 1; cut < len(text); cut++ {
		var buf bytes.Buffer
		w := r.NewWriter(&buf)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		Flush(w)
		if buf.String() != "key [REDACTED] and [REDACTED]; short stays" {
			t.Fatalf("cut %d: %q", cut, buf.String())
		}
	}
	var buf bytes.Buffer
	if w := New(nil, nil).Redactor(nil).NewWriter(&buf); w != &buf {
		t.Errorf("nothing to redact should return the writer itself")
	}
}
