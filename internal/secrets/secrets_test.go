package secrets

import (
	"bytes"
	"os"
	"path/filepath"
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

// The contents of a credentials file named by GOOGLE_APPLICATION_CREDENTIALS
// are secrets too, printed decoded or as the file's JSON.
func TestRedactCredentialFileContents(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/sa.json"
	line := "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
	raw := `{"type": "service_account", "private_key_id": "abcdef0123456789", "private_key": "-----BEGIN PRIVATE KEY-----\n` + line + `\n-----END PRIVATE KEY-----\n", "client_email": "x@y"}`
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Default().Redactor([]string{"GOOGLE_APPLICATION_CREDENTIALS=" + path})
	got := r.Redact(raw)
	if strings.Contains(got, line) || strings.Contains(got, "abcdef0123456789") || !strings.Contains(got, "x@y") {
		t.Errorf("file contents not redacted: %s", got)
	}
	if got := r.Redact("key line: " + line); strings.Contains(got, line) {
		t.Errorf("decoded key line not redacted: %s", got)
	}
	// A key file named in the config (Vertex's credentials_file) is read
	// the same way, with no variable naming it.
	r = New(nil, nil).WithFiles(path).Redactor(nil)
	if got := r.Redact(raw); strings.Contains(got, line) || strings.Contains(got, "abcdef0123456789") {
		t.Errorf("configured credentials file not redacted: %s", got)
	}
}

// A token file's whole content is the secret; a missing file is no error.
func TestTokenFilesAreRedacted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server-token")
	const tok = "Zm9vYmFyLXNlcnZlci10b2tlbi0wMTIzNDU2Nzg5"
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{New(nil, nil).WithTokenFiles(path, filepath.Join(dir, "missing")), Policy{}.WithTokenFiles(path)} {
		if got := p.Redactor(nil).Redact("server-token:1:" + tok); strings.Contains(got, tok) || !strings.Contains(got, Placeholder) {
			t.Errorf("token not redacted: %q", got)
		}
	}
}
