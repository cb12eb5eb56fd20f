package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile/projectfiletest"
)

// TestHostileProjectConfig: a project's .tandem/config.json that links out
// of the repository, is a FIFO, or is huge is refused with an error naming
// the file; nothing blocks and nothing of the target is applied.
func TestHostileProjectConfig(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "elsewhere", "config.json")
	projectfiletest.WriteFile(t, outside, []byte(`{"model":"outside/model"}`))
	cases := projectfiletest.Cases(t, outside, []byte(`{"model":"`+strings.Repeat("x", 2<<20)+`"}`))
	for want, create := range cases {
		cwd := filepath.Join(base, strings.ReplaceAll(want, " ", "-"))
		p := ProjectFile(cwd)
		create(p)
		var err error
		projectfiletest.Within(t, want+": Load", 15*time.Second, func() { _, err = Load("", p) })
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: Load = %v, want an error naming %s and %q", want, err, p, want)
		}
	}
}

// FuzzConfigFile: decoding a config file never panics and gives the same
// result (or error) for the same bytes. CI runs a few thousand inputs
// (scripts/test).
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{"", "{}", "{} {}", "null", "[]", `{"model":"a/b","small_model":"c"}`,
		`{"providers":{"p":{"kind":"openai","base_url":"http://127.0.0.1:1","api_key_env":"K"}}}`,
		`{"permissions":{"allow":["Bash"],"deny":["Read(~/.ssh/**)"]}}`, `{"claude_code":{"path":"./x"}}`,
		`{"mcpServers":{"a":{"command":"x"}}}`, `{"model":1}`, `{"model":"a"` + "\n,}", `{"Model":"a","model":"b"}`} {
		f.Add(s)
	}
	file := filepath.Join(f.TempDir(), "config.json")
	load := func(t *testing.T, data string) (*Config, error) {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(file, "")
	}
	f.Fuzz(func(t *testing.T, data string) {
		projectfiletest.SameTwice(t, fmt.Sprintf("Load(%q)", data), func() (*Config, error) { return load(t, data) })
	})
}
