package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// A stdio server started in the session's sandbox cannot write outside
// its roots.
func TestStdioServerInSandbox(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	sb, err := sandbox.New(sandbox.Policy{WriteRoots: []string{ws}}, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	h := startManager(t, Servers{"crashy": {Command: exe, Env: map[string]string{helperEnv: "crashy", helperEnv + "_WRITE": "1"}}},
		func(o *Options) { o.Confine = sb.Confine; o.WorkDir = ws })
	h.waitState(t, "crashy", StateConnected, 10*time.Second)
	outside := filepath.Join(root, "outside.txt")
	res := h.call(t, "mcp__crashy__write", map[string]any{"text": outside})
	if !res.IsError || !strings.Contains(res.Content, "permission denied") {
		t.Errorf("write outside: %+v", res)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the server wrote outside the sandbox")
	}
	if res := h.call(t, "mcp__crashy__write", map[string]any{"text": filepath.Join(ws, "in.txt")}); res.IsError {
		t.Errorf("write inside: %+v", res)
	}
}
