package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// File rules (Read/Edit deny and ask) hold for shell commands too.
func TestFileRulesApplyToShellOperands(t *testing.T) {
	work := t.TempDir()
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	for _, d := range []string{"secrets", "docs", "src"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rules := func(specs ...string) []Rule {
		var out []Rule
		for i := 0; i < len(specs); i += 2 {
			r, err := ParseRule(specs[i+1], Action(specs[i]))
			if err != nil {
				t.Fatal(err)
			}
			r.Base = work
			out = append(out, r)
		}
		return out
	}
	cases := []struct {
		mode Mode
		cmd  string
		want Behavior
	}{
		{Trust, "cat secrets/key", Deny},
		{Normal, "cat ./secrets/key", Deny},
		{Trust, "grep -r token secrets", Deny},
		{Trust, "head -n 3 src/../secrets/key", Deny},
		{Trust, "rm docs/a.md", Deny},
		{Trust, "echo hi > docs/b.md", Deny},
		{Normal, "cat src/main.go", Allow},
		{Trust, "cat notes/todo.txt", Deny}, // ask rule, no one to ask
		{Normal, "ls", Allow},
	}
	for _, c := range cases {
		e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: c.mode, WorkDir: work, Roots: []string{work},
			UserRules: rules("deny", "Read(/secrets/**)", "deny", "Edit(/docs/**)", "ask", "Read(/notes/**)")})
		raw, _ := json.Marshal(map[string]string{"command": c.cmd})
		d, err := e.Check(context.Background(), Request{Tool: "Bash", Input: raw, Cwd: work})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != c.want {
			t.Errorf("%s %q: got %s (%s), want %s", c.mode, c.cmd, d.Behavior, d.Message, c.want)
		}
	}
}
