package skills

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileProjectFiles: a cloned repository's skill and command files
// that link to a secret outside it, are FIFOs, are huge, or hold only
// `---` each become a warning; none reaches a skill or command, none
// blocks and none panics.
func TestHostileProjectFiles(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "repo")
	write(t, proj, map[string]string{
		".claude/skills/dash/SKILL.md": "---",
		".claude/commands/dash.md":     "---",
		".claude/skills/good/SKILL.md": "---\nname: good\ndescription: fine\n---\nGood.\n",
		".claude/skills/big/SKILL.md":  "---\nname: big\ndescription: big\n---\n" + strings.Repeat("x", 300<<10),
	})
	for _, l := range []struct{ target, path string }{
		{"../../../../home/.ssh/id_rsa", ".claude/skills/k/SKILL.md"},
		{"../../../../home/.ssh/id_rsa", ".agents/skills/k2/SKILL.md"},
		{"../../../home/.ssh/id_rsa", ".claude/commands/key.md"},
	} {
		p := filepath.Join(proj, l.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l.target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".claude/skills/fifo/SKILL.md", ".claude/commands/fifo.md"} {
		p := filepath.Join(proj, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan *Catalog, 1)
	go func() { done <- Load(DefaultPlaces(proj, "", "")) }()
	var cat *Catalog
	select {
	case cat = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("loading skills blocked on a FIFO")
	}
	for _, s := range cat.Skills {
		if strings.Contains(s.Body+s.Description, "SECRETKEY") {
			t.Errorf("skill %s carries the secret", s.Name)
		}
	}
	for _, c := range cat.Commands {
		if strings.Contains(c.Body+c.Description, "SECRETKEY") {
			t.Errorf("command %s carries the secret", c.Name)
		}
	}
	if cat.Skill("good") == nil {
		t.Error("the good skill was not loaded beside the bad ones")
	}
	for _, want := range []struct{ file, msg string }{
		{".claude/skills/k/SKILL.md", "outside the repository"},
		{".agents/skills/k2/SKILL.md", "outside the repository"},
		{".claude/commands/key.md", "outside the repository"},
		{".claude/skills/fifo/SKILL.md", "named pipe"},
		{".claude/commands/fifo.md", "named pipe"},
		{".claude/skills/big/SKILL.md", "larger than"},
		{".claude/skills/dash/SKILL.md", "never closed"},
		{".claude/commands/dash.md", "never closed"},
	} {
		if !warned(cat.Warnings, filepath.Join(proj, filepath.FromSlash(want.file)), want.msg) {
			t.Errorf("no warning %q for %s in %v", want.msg, want.file, cat.Warnings)
		}
	}
}

func warned(ws []Warning, file, msg string) bool {
	for _, w := range ws {
		if w.File == file && strings.Contains(w.Msg, msg) {
			return true
		}
	}
	return false
}
