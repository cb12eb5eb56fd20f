package prompt

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
)

func TestFamilyOf(t *testing.T) {
	for id, want := range map[string]Family{
		"claude-sonnet-4-5": Claude, "anthropic.claude-opus-4-1-20250805-v1:0": Claude, "us.anthropic.claude-haiku-4-5": Claude,
		"gpt-5": GPT, "gpt-5.1-codex": GPT, "o3": GPT, "o4-mini": GPT, "codex-mini-latest": GPT,
		"gemini-2.5-pro": Gemini, "models/gemini-3-pro-preview": Gemini,
		"gpt-oss:20b": Open, "openai/gpt-oss-120b": Open, "qwen3-coder:30b": Open, "llama3.1": Open, "omni": Open, "": Open,
	} {
		if got := FamilyOf(id); got != want {
			t.Errorf("FamilyOf(%q) = %s, want %s", id, got, want)
		}
	}
}

// Each family gets its own addendum and every family the shared sections;
// a section names only tools the request offers.
func TestSectionsPerFamilyAndTools(t *testing.T) {
	b := Builder{}
	env := Environment{Date: "2026-01-02", Folder: "/w", Git: "not a repository"}
	addenda := map[string]bool{}
	for _, f := range Families() {
		model := map[Family]string{Claude: "claude-x", GPT: "gpt-5", Gemini: "gemini-2.5-pro", Open: "qwen3"}[f]
		secs := b.Sections(Request{Model: model, Tools: []string{"Read", "Grep"}, Env: env})
		var names []string
		for _, s := range secs {
			names = append(names, s.Name)
			if s.Name == "family: "+string(f) {
				addenda[s.Text] = true
			}
		}
		if got := strings.Join(names, ","); got != "intro,work,care,tandem,answer,family: "+string(f)+",mode: normal,environment" {
			t.Errorf("%s: sections %s", f, got)
		}
		all := strings.Join(Blocks(secs), "\n")
		for _, absent := range []string{"Agent", "TodoWrite", "Skill", "Glob"} {
			if strings.Contains(all, absent) {
				t.Errorf("%s: the prompt names %s, which is not offered", f, absent)
			}
		}
	}
	if len(addenda) != len(Families()) {
		t.Errorf("families share addenda: %d distinct of %d", len(addenda), len(Families()))
	}
}

func TestModeAndNoAskerSections(t *testing.T) {
	b := Builder{}
	env := Environment{Date: "d"}
	text := func(m permission.Mode, noAsker bool) string {
		return strings.Join(b.System(Request{Model: "claude", Mode: m, NoAsker: noAsker, Env: env}), "\n")
	}
	if s := text(permission.Explore, true); !strings.Contains(s, "explore mode") || strings.Contains(s, "No one is present") {
		t.Errorf("explore (which never asks) with no asker:\n%s", s)
	}
	if s := text(permission.Trust, true); !strings.Contains(s, "# Mode: trust") || !strings.Contains(s, "No one is present") {
		t.Errorf("trust without an asker:\n%s", s)
	}
	if s := text("", false); !strings.Contains(s, "# Mode: normal") || strings.Contains(s, "No one is present") {
		t.Errorf("default mode:\n%s", s)
	}
}

func TestFormatStatusBounded(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, " M file"+strings.Repeat("x", i)+".go")
	}
	got := formatStatus("## main...origin/main\n" + strings.Join(lines, "\n") + "\n")
	if !strings.HasPrefix(got, "repository, branch main...origin/main, 30 changed paths") || !strings.Contains(got, "… 10 more") ||
		strings.Count(got, "\n  ") != gitStatusLines+1 {
		t.Errorf("status:\n%s", got)
	}
	if got := formatStatus("## main\n"); got != "repository, branch main, clean" {
		t.Errorf("clean: %q", got)
	}
}

func TestEnvironmentReadsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q", "-b", "trunk").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(t, filepath.Join(dir, "new.txt"), "x")
	env := Builder{}.Environment(context.Background(), dir)
	if !strings.Contains(env.Git, "branch No commits yet on trunk") && !strings.Contains(env.Git, "trunk") || !strings.Contains(env.Git, "?? new.txt") {
		t.Errorf("git: %q", env.Git)
	}
	if env.Folder != dir || env.Date == "" || env.Shell == "" {
		t.Errorf("environment %+v", env)
	}
	// A repository whose own config names a program is not run.
	if out, err := exec.Command("git", "-C", dir, "config", "core.fsmonitor", "touch "+filepath.Join(dir, "ran")).CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	if env := (Builder{}).Environment(context.Background(), dir); !strings.Contains(env.Git, "status not read") {
		t.Errorf("a repository naming a program in its config: %q", env.Git)
	}
	if got := (Builder{}).Environment(context.Background(), t.TempDir()).Git; got != "not a repository" {
		t.Errorf("plain folder: %q", got)
	}
}
