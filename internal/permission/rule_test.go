package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

func check(t *testing.T, e *Engine, tool string, in any) Decision {
	t.Helper()
	raw, _ := json.Marshal(in)
	d, err := e.Check(context.Background(), Request{Tool: tool, Input: raw})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseRule(t *testing.T) {
	cases := []struct{ in, perm, pat string }{
		{"Bash", "Bash", ""}, {"Bash(*)", "Bash", ""}, {"Bash(npm run test:*)", "Bash", "npm run test:*"},
		{"Read(./secrets/**)", "Read", "./secrets/**"}, {"WebFetch(domain:example.com)", "WebFetch", "domain:example.com"},
		{"mcp__github__*", "mcp__github__*", ""},
	}
	for _, c := range cases {
		r, err := ParseRule(c.in, ActionAllow)
		if err != nil || r.Permission != c.perm || r.Pattern != c.pat {
			t.Errorf("ParseRule(%q) = %+v, %v", c.in, r, err)
		}
	}
	for _, bad := range []string{"", "Bash(x", "(x)", "Bad Name(x)"} {
		if _, err := ParseRule(bad, ActionAllow); err == nil {
			t.Errorf("ParseRule(%q) should fail", bad)
		}
	}
}

func TestBashPatterns(t *testing.T) {
	cases := []struct {
		pat, cmd string
		want     bool
	}{
		{"ls *", "ls", true}, {"ls *", "ls -la", true}, {"ls *", "lsof", false}, {"ls*", "lsof", true},
		{"npm run test:*", "npm run test", true}, {"npm run test:*", "npm run test --watch", true},
		{"npm run test:*", "npm run testx", false}, {"git * main", "git push origin main", true},
		{"make build", "make build", true}, {"make build", "make build extra", false},
	}
	for _, c := range cases {
		if got := matchCommand(c.pat, c.cmd); got != c.want {
			t.Errorf("matchCommand(%q, %q) = %v", c.pat, c.cmd, got)
		}
	}
	if !flagMatch("rm -rf:*", []string{"rm", "-f", "-v", "-r", "/"}) || flagMatch("rm -rf:*", []string{"rm", "-r", "x"}) {
		t.Errorf("flagMatch must compare flag sets")
	}
}

// Deny beats ask beats allow across all layers; a project allow never
// loosens a user deny; session grants cannot beat an ask rule.
func TestRuleOrderAndLayers(t *testing.T) {
	work := t.TempDir()
	a := &recordingAsker{}
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a,
		UserRules:    mustRules(t, ActionDeny, "Bash(docker:*)", "Read(./secrets/**)"),
		ProjectRules: mustRules(t, ActionAllow, "Bash(docker:*)", "Bash(git push:*)", "Read(./secrets/**)", "Bash"),
		FlagRules:    mustRules(t, ActionAsk, "Bash(git push:*)"),
	})
	if d := check(t, e, "Bash", map[string]string{"command": "docker ps"}); d.Behavior != Deny || !strings.Contains(d.Message, "docker") {
		t.Errorf("user deny must beat project allow: %+v", d)
	}
	if d := check(t, e, "Read", map[string]string{"file_path": filepath.Join(work, "secrets", "k")}); d.Behavior != Deny {
		t.Errorf("user Read deny must beat project allow: %+v", d)
	}
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "git push"}); got != "Q" {
		t.Errorf("ask rule must beat allow rule: %s", got)
	}
	e.AddSessionRule(Rule{Permission: "Bash", Pattern: "git push:*", Action: ActionAllow})
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "git push"}); got != "Q" {
		t.Errorf("a session allow must not beat an ask rule: %s", got)
	}
	// Bare `Bash` allow (project) lets unknown commands run in normal mode.
	if got, _ := verdictOf(t, e, a, "Bash", map[string]string{"command": "make"}); got != "A" {
		t.Errorf("bare Bash allow: %s", got)
	}
	// A bare tool deny covers every call.
	e2 := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, FlagRules: mustRules(t, ActionDeny, "WebFetch(domain:evil.com)", "mcp__srv")})
	if d := check(t, e2, "WebFetch", map[string]string{"url": "https://evil.com/x"}); d.Behavior != Deny {
		t.Errorf("domain deny: %+v", d)
	}
	if d := check(t, e2, "WebFetch", map[string]string{"url": "https://good.com/x"}); d.Behavior != Allow {
		t.Errorf("other domain: %+v", d)
	}
	if d := check(t, e2, "mcp__srv__tool", map[string]string{}); d.Behavior != Deny {
		t.Errorf("server-wide MCP deny: %+v", d)
	}
}

func TestPathRuleSemantics(t *testing.T) {
	work, home := "/w/proj", "/h/me"
	cases := []struct {
		pat, base, path string
		want            bool
	}{
		{"//etc/**", "", "/etc/passwd", true},
		{"~/.ssh/**", "", "/h/me/.ssh/id_rsa", true},
		{"/docs/**", "/w/proj", "/w/proj/docs/a.md", true},
		{"/docs/**", "/w/proj", "/w/proj/src/docs/a.md", false},
		{"./secrets/**", "", "/w/proj/secrets/k", true},
		{"*.env", "", "/w/proj/a/b/prod.env", true},
		{"./secrets", "", "/w/proj/secrets/deep/k", true},
	}
	for _, c := range cases {
		r := Rule{Permission: "Read", Pattern: c.pat, Base: c.base, Action: ActionDeny}
		if got := r.matchPath(c.path, work, home); got != c.want {
			t.Errorf("%s vs %s: %v", c.pat, c.path, got)
		}
	}
}

func TestLoadClaudeSettingsAndFlags(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(work, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions":{"deny":["Bash(curl:*)","Read(~/.ssh/**)"]}}`), 0o644)
	os.WriteFile(filepath.Join(work, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(npm run test:*)","Edit(/docs/**)","Bash(curl:*)"],"defaultMode":"acceptEdits"},
		"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"}]}]}}`), 0o644)
	os.WriteFile(filepath.Join(work, ".claude", "settings.local.json"), []byte(`{"permissions":{"ask":["WebFetch"]}}`), 0o644)
	l, err := LoadClaudeSettings(work, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.UserRules) != 2 || len(l.ProjectRules) != 4 || l.DefaultMode != "acceptEdits" || len(l.Files) != 3 {
		t.Fatalf("layers: %+v", l)
	}
	if paths := l.Hooks.ScriptPaths(work); len(paths) != 1 || paths[0] != filepath.Join(work, ".claude/hooks/guard.sh") {
		t.Errorf("hook script paths: %v", paths)
	}
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, HomeDir: home, UserRules: l.UserRules, ProjectRules: l.ProjectRules})
	if d := check(t, e, "Bash", map[string]string{"command": "curl x"}); d.Behavior != Deny {
		t.Errorf("project allow loosened user deny: %+v", d)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "npm run test -- -u"}); d.Behavior != Allow {
		t.Errorf("Claude rule not honoured: %+v", d)
	}
	if d := check(t, e, "Edit", map[string]string{"file_path": "/elsewhere/docs/a.md"}); d.Behavior != Deny {
		t.Errorf("/docs is relative to the project, not absolute: %+v", d)
	}
	os.WriteFile(filepath.Join(work, ".claude", "settings.local.json"), []byte(`{"permissions":{"ask":["Bash(x"]}}`), 0o644)
	if _, err := LoadClaudeSettings(work, home); err == nil || !strings.Contains(err.Error(), "settings.local.json") {
		t.Errorf("a bad rule must name the file: %v", err)
	}
	rules, err := ParseToolFlags([]string{"Bash(git log:*),Edit", "Read Bash(npm test)"}, ActionAllow)
	if err != nil || len(rules) != 4 || rules[3].Pattern != "npm test" {
		t.Errorf("flags: %+v %v", rules, err)
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{Mode: "plan", Allow: []string{"Bash(ls:*)"}, Rules: []Rule{{Permission: "Edit", Pattern: "src/**", Action: ActionAllow}}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Config{{Mode: "yolo"}, {Deny: []string{"Bash("}}, {Rules: []Rule{{Permission: "Bash", Action: "maybe"}}},
		{AdditionalDirectories: []string{" "}}} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "permissions.") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "bypassPermissions") {
		t.Errorf("ParseMode error must list names: %v", err)
	}
	for in, want := range map[string]Mode{"default": Normal, "plan": Explore, "bypassPermissions": Trust, "acceptEdits": AcceptEdits, "dontAsk": DontAsk, "trust": Trust} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v %v", in, m, err)
		}
	}
}

func TestModesDontAskAcceptEditsAndModeChange(t *testing.T) {
	work := t.TempDir()
	var events []event.Event
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: DontAsk, WorkDir: work, Asker: &recordingAsker{}, Emit: func(ev event.Event) { events = append(events, ev) }})
	if d := check(t, e, "Bash", map[string]string{"command": "make"}); d.Behavior != Deny || !strings.Contains(d.Message, "dontAsk") {
		t.Errorf("dontAsk: %+v", d)
	}
	e.SetMode(AcceptEdits)
	if len(events) != 1 || events[0].Type != event.ModeChanged || events[0].Mode != "acceptEdits" || events[0].PreviousMode != "dontAsk" {
		t.Errorf("mode_changed: %+v", events)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "mkdir -p build && echo x > build/a"}); d.Behavior != Allow {
		t.Errorf("acceptEdits runs workspace file ops: %+v", d)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "mkdir /tmp/elsewhere-x"}); d.Behavior == Allow {
		t.Errorf("acceptEdits must not write outside: %+v", d)
	}
}

// AskEdits is Claude Code's "default": reads run, every edit asks, and an
// asker's rewritten input reaches the decision.
func TestAskEditsAsksBeforeEveryEdit(t *testing.T) {
	work := t.TempDir()
	asker := AskerFunc(func(_ context.Context, q Question) (Answer, error) {
		return Answer{Decision: AllowOnce, UpdatedInput: json.RawMessage(`{"file_path":"b.txt","content":"x"}`)}, nil
	})
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: AskEdits, WorkDir: work, Roots: []string{work}, Asker: asker})
	if d := check(t, e, "Read", map[string]string{"file_path": "a.txt"}); d.Behavior != Allow || d.Rule == "user:allow_once" {
		t.Errorf("read: %+v", d)
	}
	d := check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"})
	if d.Behavior != Allow || d.Rule != "user:allow_once" || string(d.UpdatedInput) != `{"file_path":"b.txt","content":"x"}` {
		t.Errorf("write: %+v", d)
	}
	e.SetMode(Normal)
	if d := check(t, e, "Write", map[string]string{"file_path": "a.txt", "content": "x"}); d.Behavior != Allow || d.Rule == "user:allow_once" {
		t.Errorf("normal mode asked for a workspace edit: %+v", d)
	}
}
