package permission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// An answer that rewrites the input is judged again: a command rewritten
// past a deny rule is denied naming why, a Write moved outside the
// workspace or onto a protected file is asked about as itself, a rewrite
// the answer covered (same question) is allowed, and an echo of the input
// is no rewrite.
func TestAnswerRewriteIsJudgedAgain(t *testing.T) {
	work := t.TempDir()
	outside := filepath.Join(t.TempDir(), "x.txt")
	var asked []string
	answer := func(updated string) Asker {
		asked = nil
		return AskerFunc(func(_ context.Context, q Question) (Answer, error) {
			asked = append(asked, string(q.Input))
			if len(asked) > 1 {
				return Answer{Decision: DenyCall}, nil
			}
			return Answer{Decision: AllowOnce, UpdatedInput: json.RawMessage(updated)}, nil
		})
	}
	deny := []Rule{{Permission: "Bash", Pattern: "rm:*", Action: ActionDeny, Source: "flag"}}

	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work}, FlagRules: deny,
		Asker: answer(`{"command":"rm -rf /tmp/x"}`)})
	d := check(t, e, "Bash", map[string]string{"command": "touch a"})
	if d.Behavior != Deny || !strings.Contains(d.Message, "updatedInput") || !strings.Contains(d.Message, "Bash(rm:*)") {
		t.Errorf("a command rewritten past a deny rule: %+v", d)
	}

	e = NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work},
		Asker: answer(`{"file_path":"` + outside + `","content":"x"}`)})
	d = check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"})
	if d.Behavior != Deny || len(asked) != 2 || !strings.Contains(asked[1], outside) {
		t.Errorf("a Write moved outside the workspace was not asked about as itself: %+v, asked %v", d, asked)
	}

	e = NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work},
		Asker: answer(`{"file_path":"` + filepath.Join(work, ".claude", "settings.json") + `","content":"{}"}`)})
	d = check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"})
	if d.Behavior != Deny || len(asked) != 2 {
		t.Errorf("a Write moved onto a protected file was not asked about as itself: %+v, asked %v", d, asked)
	}

	e = NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work},
		Asker: answer(`{"file_path":"a.txt","content":"other"}`)})
	d = check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"})
	if d.Behavior != Allow || len(asked) != 1 || string(d.UpdatedInput) != `{"file_path":"a.txt","content":"other"}` {
		t.Errorf("a rewrite the answer covers: %+v, asked %v", d, asked)
	}

	e = NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work},
		Asker: answer(`{"content": "x", "file_path": "a.txt"}`)})
	d = check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"})
	if d.Behavior != Allow || len(asked) != 1 || len(d.UpdatedInput) != 0 {
		t.Errorf("an echoed input: %+v, asked %v", d, asked)
	}
}
