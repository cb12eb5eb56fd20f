package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/tool"
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
	tl, _ := h.reg.Get("mcp__crashy__write")
	env := tool.NewEnv("s", ws, nil, t.TempDir())
	env.Sandbox = sb
	var denials []event.Event
	env.Emit = func(e event.Event) {
		if e.Type == event.SandboxDenial {
			denials = append(denials, e)
		}
	}
	res, err := tl.Execute(context.Background(), tool.Call{ID: "w1", Name: "mcp__crashy__write", Input: json.RawMessage(`{"text":"` + outside + `"}`), Env: env})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "permission denied") {
		t.Errorf("write outside: %+v %v", res, err)
	}
	// The refusal is reported: an event naming the path and the rule, and
	// the note in the result.
	if len(denials) != 1 || denials[0].Meta["path"] != outside || denials[0].Meta["rule"] != sandbox.RuleWriteOutside || denials[0].ToolUseID != "w1" ||
		!strings.Contains(res.Content, "[sandbox]") {
		t.Errorf("sandbox_denial events: %+v; result %q", denials, res.Content)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the server wrote outside the sandbox")
	}
	if res := h.call(t, "mcp__crashy__write", map[string]any{"text": filepath.Join(ws, "in.txt")}); res.IsError {
		t.Errorf("write inside: %+v", res)
	}
}
