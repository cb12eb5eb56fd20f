package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	testfiles.Write(t, p, s)
}

func TestInstructionsOrderAndScope(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Dir(root)
	_ = outside
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "pkg", "sub")
	write(t, filepath.Join(root, "AGENTS.md"), "ABOVE-REPO")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: x")
	write(t, filepath.Join(repo, "AGENTS.md"), "REPO-AGENTS")
	write(t, filepath.Join(repo, "CLAUDE.md"), "REPO-CLAUDE")
	write(t, filepath.Join(sub, "AGENTS.md"), "SUB-AGENTS")
	cfg := filepath.Join(root, "cfg")
	write(t, filepath.Join(cfg, "AGENTS.md"), "GLOBAL")
	home := filepath.Join(root, "home")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "CLAUDE-GLOBAL")

	b := Builder{ConfigDir: cfg, Home: home}
	got := b.Instructions(sub)
	if strings.Contains(got, "ABOVE-REPO") {
		t.Errorf("read instructions above the repository root:\n%s", got)
	}
	order := []string{"GLOBAL", "CLAUDE-GLOBAL", "REPO-AGENTS", "REPO-CLAUDE", "SUB-AGENTS"}
	last := -1
	for _, w := range order {
		i := strings.Index(got, w)
		if i < 0 {
			t.Fatalf("missing %s in:\n%s", w, got)
		}
		if i < last {
			t.Errorf("%s out of order", w)
		}
		last = i
	}
}

func TestSystemBlocks(t *testing.T) {
	dir := t.TempDir()
	b := Builder{Now: func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }}
	blocks := b.System(Request{Cwd: dir, Append: "EXTRA", Model: "claude-x"})
	if len(blocks) != 4 {
		t.Fatalf("want base, mode, environment, append; got %d blocks", len(blocks))
	}
	if !strings.Contains(blocks[2], dir) || !strings.Contains(blocks[2], "2026-01-02") || !strings.Contains(blocks[2], "claude-x") {
		t.Errorf("environment block: %q", blocks[2])
	}
	if blocks[3] != "EXTRA" {
		t.Errorf("append block: %q", blocks[3])
	}
}

func TestHugeInstructionsTruncated(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("x", projectfile.InstructionLimit+100))
	got := Builder{}.Instructions(dir)
	if !strings.Contains(got, "truncated") || len(got) > projectfile.InstructionLimit+500 {
		t.Errorf("not truncated: len %d", len(got))
	}
}

// An instructions file that exists but cannot be read used to be skipped
// silently.
func TestUnreadableInstructionsWarn(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "CLAUDE.md"), 0o755); err != nil { // reading a folder fails, even as root
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "AGENTS.md"), "STILL-READ")
	var warn strings.Builder
	got := Builder{Warn: &warn}.Instructions(dir)
	if !strings.Contains(got, "STILL-READ") {
		t.Errorf("the readable file was dropped:\n%s", got)
	}
	if !strings.Contains(warn.String(), filepath.Join(dir, "CLAUDE.md")) {
		t.Errorf("no warning naming the unreadable file: %q", warn.String())
	}
}

// A project instructions file is read only when its real path is inside the
// repository; a FIFO never blocks. Each skipped file is named in a warning.
func TestInstructionsStayInsideTheRepository(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: x")
	secret := filepath.Join(root, "home", ".ssh", "id_rsa")
	write(t, secret, "PRIVATE-KEY")
	write(t, filepath.Join(repo, "docs", "agents.md"), "INSIDE-TARGET")
	if err := os.Symlink(secret, filepath.Join(repo, "AGENTS.md")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("docs/agents.md", filepath.Join(repo, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "CLAUDE.local.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	dotfiles := filepath.Join(root, "dotfiles", "agents.md")
	write(t, dotfiles, "GLOBAL-VIA-LINK")
	cfg := filepath.Join(root, "cfg")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, filepath.Join(cfg, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	var warnings strings.Builder
	b := Builder{ConfigDir: cfg, Warn: &warnings}
	done := make(chan string)
	go func() { done <- b.Instructions(repo) }()
	var got string
	select {
	case got = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("reading instructions blocked on a FIFO")
	}
	if strings.Contains(got, "PRIVATE-KEY") {
		t.Errorf("a link out of the repository was read:\n%s", got)
	}
	for _, want := range []string{"INSIDE-TARGET", "GLOBAL-VIA-LINK"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	all := warnings.String()
	for _, want := range []string{filepath.Join(repo, "AGENTS.md"), "outside the repository", filepath.Join(repo, "CLAUDE.local.md"), "named pipe"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

// CLAUDE.md @imports are read under the same rule as the file: inside the
// repository for a project file, anything for the user's global file.
func TestClaudeImportsStayInsideTheRepository(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	home := filepath.Join(root, "home")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: x")
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "PRIVATE-KEY")
	write(t, filepath.Join(home, "prefs.md"), "USER-PREFS")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "global, see @~/prefs.md")
	write(t, filepath.Join(repo, "docs", "style.md"), "STYLE-GUIDE, more in @nested.md")
	write(t, filepath.Join(repo, "docs", "nested.md"), "NESTED-IMPORT")
	write(t, filepath.Join(repo, "CLAUDE.md"), "Read @docs/style.md and @~/.ssh/id_rsa and @../home/.ssh/id_rsa.\n"+
		"`@docs/ignored.md` in code, and ask @someone.\n```\n@docs/fenced.md\n```\n")
	write(t, filepath.Join(repo, "docs", "ignored.md"), "IN-CODE-SPAN")
	write(t, filepath.Join(repo, "docs", "fenced.md"), "IN-FENCE")
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(repo, "docs", "key.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "CLAUDE.local.md"), "local: @docs/key.md")
	var warnings strings.Builder
	b := Builder{Home: home, Warn: &warnings}
	got := b.Instructions(repo)
	for _, want := range []string{"STYLE-GUIDE", "NESTED-IMPORT", "USER-PREFS"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s:\n%s", want, got)
		}
	}
	for _, bad := range []string{"PRIVATE-KEY", "IN-CODE-SPAN", "IN-FENCE"} {
		if strings.Contains(got, bad) {
			t.Errorf("read %s:\n%s", bad, got)
		}
	}
	all := warnings.String()
	if !strings.Contains(all, filepath.Join(home, ".ssh", "id_rsa")) || !strings.Contains(all, filepath.Join(repo, "docs", "key.md")) {
		t.Errorf("warnings do not name the skipped imports:\n%s", all)
	}
}
