package skills

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile/projectfiletest"
)

// TestHostileProjectFiles: a cloned repository's skill and command files
// that link to a secret outside it, are FIFOs, are huge, or hold only
// `---` each become a warning; none reaches a skill or command, none
// blocks and none panics.
func TestHostileProjectFiles(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", ".ssh", "id_rsa")
	projectfiletest.WriteFile(t, secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEY"))
	proj := filepath.Join(base, "repo")
	write(t, proj, map[string]string{
		".claude/skills/dash/SKILL.md": "---",
		".claude/commands/dash.md":     "---",
		".claude/skills/good/SKILL.md": "---\nname: good\ndescription: fine\n---\nGood.\n",
	})
	hostile := projectfiletest.Cases(t, secret, []byte("---\nname: big\ndescription: big\n---\n"+strings.Repeat("x", 300<<10)))
	for f, kind := range map[string]string{
		".claude/skills/k/SKILL.md":    projectfiletest.Outside,
		".agents/skills/k2/SKILL.md":   projectfiletest.Outside,
		".claude/commands/key.md":      projectfiletest.Outside,
		".claude/skills/fifo/SKILL.md": projectfiletest.NamedPipe,
		".claude/commands/fifo.md":     projectfiletest.NamedPipe,
		".claude/skills/big/SKILL.md":  projectfiletest.TooLarge,
	} {
		hostile[kind](filepath.Join(proj, f))
	}
	var cat *Catalog
	projectfiletest.Within(t, "loading skills", 15*time.Second, func() { cat = Load(DefaultPlaces(proj, "", "")) })
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
