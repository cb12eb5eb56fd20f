package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// A secret value that reaches any built-in tool's result (a Read of a file
// holding the key) is blanked, and wrapping keeps read-only declarations.
func TestBuiltinResultsRedactSecrets(t *testing.T) {
	const key = "sk-ant-redact-0123456789abcdef"
	t.Setenv("ANTHROPIC_API_KEY", key)
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.txt")
	os.WriteFile(p, []byte("my key is "+key+"\n"), 0o644)
	reg := tool.NewRegistry(Default(Options{})...)
	env := tool.NewEnv("s", dir, nil, "")
	read, _ := reg.Get("Read")
	raw, _ := json.Marshal(map[string]any{"file_path": p})
	res, err := read.Execute(context.Background(), tool.Call{ID: "r1", Name: "Read", Input: raw, Env: env})
	if err != nil || strings.Contains(res.Content, key) || !strings.Contains(res.Content, "my key is [REDACTED]") {
		t.Errorf("Read result: %q %v", res.Content, err)
	}
	// Writing back what was shown would destroy the key: refused.
	write, _ := reg.Get("Write")
	raw, _ = json.Marshal(map[string]any{"file_path": p, "content": "my key is [REDACTED]\nmore\n"})
	res, _ = write.Execute(context.Background(), tool.Call{ID: "w1", Name: "Write", Input: raw, Env: env})
	if b, _ := os.ReadFile(p); !res.IsError || !strings.Contains(string(b), key) {
		t.Errorf("Write clobbered the key: %q / %q", res.Content, b)
	}
	for _, name := range []string{"Read", "Glob", "Grep"} {
		tl, _ := reg.Get(name)
		if ro, ok := tl.(tool.ReadOnly); !ok || !ro.ReadOnly() {
			t.Errorf("%s lost its read-only declaration", name)
		}
	}
	if w, _ := reg.Get("Write"); w.(tool.ReadOnly).ReadOnly() {
		t.Errorf("Write became read-only")
	}
}
