package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func call(t *testing.T, c Checker, tool string, input any, readOnly bool) Decision {
	t.Helper()
	raw, _ := json.Marshal(input)
	d, err := c.Check(context.Background(), Request{Tool: tool, Input: raw, ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStricter(t *testing.T) {
	for _, c := range []struct{ a, b, want Mode }{
		{Normal, Explore, Explore}, {Explore, Trust, Explore}, {Trust, AcceptEdits, AcceptEdits},
		{Normal, DontAsk, DontAsk}, {Trust, Normal, Normal}, {Normal, "", Normal},
	} {
		if got := Stricter(c.a, c.b); got != c.want {
			t.Errorf("Stricter(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// A narrowed view (a sub-agent with permissionMode: plan) refuses writes
// its normal-mode parent would run, and never allows more than the parent.
func TestNarrowedNeverWidens(t *testing.T) {
	work := t.TempDir()
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Mode: Normal})
	write := map[string]string{"file_path": filepath.Join(work, "a.txt"), "content": "x"}
	if d := call(t, e, "Write", write, false); d.Behavior != Allow {
		t.Fatalf("parent: %+v", d)
	}
	child := e.Narrowed(Explore)
	if d := call(t, child, "Write", write, false); d.Behavior != Deny {
		t.Errorf("explore child may write: %+v", d)
	}
	if d := call(t, child, "Read", map[string]string{"file_path": filepath.Join(work, "a.txt")}, true); d.Behavior != Allow {
		t.Errorf("explore child may not read: %+v", d)
	}
	e.SetMode(Explore)
	if d := call(t, e.Narrowed(Trust), "Write", write, false); d.Behavior != Deny {
		t.Errorf("a trust child of an explore parent may write: %+v", d)
	}
}

// A skill's allowed-tools pre-approve calls that would ask, never past a
// deny rule, and end when revoked.
func TestGrantNeverBeatsDeny(t *testing.T) {
	work := t.TempDir()
	deny, _ := ParseRule("Bash(rm *)", ActionDeny)
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, UserRules: []Rule{deny}})
	py := map[string]string{"command": "python3 -c 'print(1)'"}
	rm := map[string]string{"command": "rm -rf build"}
	if d := call(t, e, "Bash", py, false); d.Behavior != Deny { // no asker: an ask becomes a denial
		t.Fatalf("python3 without a grant: %+v", d)
	}
	allowPy, _ := ParseRule("Bash(python3 *)", ActionAllow)
	allowRm, _ := ParseRule("Bash(rm *)", ActionAllow)
	revoke := e.Grant("skill test", []Rule{allowPy, allowRm})
	if d := call(t, e, "Bash", py, false); d.Behavior != Allow {
		t.Errorf("granted python3: %+v", d)
	}
	if d := call(t, e, "Bash", rm, false); d.Behavior != Deny {
		t.Errorf("a grant beat the user's deny rule: %+v", d)
	}
	revoke()
	if d := call(t, e, "Bash", py, false); d.Behavior != Deny {
		t.Errorf("the grant outlived revoke: %+v", d)
	}
}

// Skill folders outside the workspace are readable, never writable.
func TestReadRoots(t *testing.T) {
	work, skill := t.TempDir(), t.TempDir()
	ref := filepath.Join(skill, "reference.md")
	if err := os.WriteFile(ref, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, ReadRoots: []string{skill}})
	if d := call(t, e, "Read", map[string]string{"file_path": ref}, true); d.Behavior != Allow {
		t.Errorf("read a skill file: %+v", d)
	}
	if d := call(t, e, "Edit", map[string]string{"file_path": ref, "old_string": "x", "new_string": "y"}, false); d.Behavior == Allow {
		t.Errorf("edit a skill file outside the workspace: %+v", d)
	}
	other := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work})
	if d := call(t, other, "Read", map[string]string{"file_path": ref}, true); d.Behavior == Allow {
		t.Errorf("without the read root the file is outside the workspace: %+v", d)
	}
}

// Skill(name) and Agent(type) rules (Task(type) too) match what is invoked.
func TestInvocationRules(t *testing.T) {
	denySkill, _ := ParseRule("Skill(deploy)", ActionDeny)
	denyAgent, _ := ParseRule("Task(Explore)", ActionDeny)
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir(), UserRules: []Rule{denySkill, denyAgent}})
	if d := call(t, e, "Skill", map[string]string{"skill": "deploy"}, true); d.Behavior != Deny {
		t.Errorf("Skill(deploy) denied? %+v", d)
	}
	if d := call(t, e, "Skill", map[string]string{"skill": "review"}, true); d.Behavior != Allow {
		t.Errorf("another skill: %+v", d)
	}
	if d := call(t, e, "Agent", map[string]string{"subagent_type": "Explore", "prompt": "x"}, true); d.Behavior != Deny {
		t.Errorf("Task(Explore) should deny Agent Explore: %+v", d)
	}
	if d := call(t, e, "Agent", map[string]string{"prompt": "x"}, true); d.Behavior != Allow {
		t.Errorf("general-purpose: %+v", d)
	}
}
