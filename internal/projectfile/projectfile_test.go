package projectfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	testfiles.Write(t, path, text)
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestRead covers every refusal: a link out of the repository (the
// issue's `ln -s ../../../../.ssh/id_rsa .claude/skills/k/SKILL.md`), a
// link to a credential inside it, a FIFO, a device, a file over the limit;
// and what is read: a plain file, a link that stays inside, a file in a
// parent folder of the working folder but inside the repository.
func TestRead(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "PRIVATE KEY")
	repo := filepath.Join(home, "src", "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(repo, "sub")
	write(t, filepath.Join(repo, "shared.md"), "shared")
	write(t, filepath.Join(repo, ".env"), "TOKEN=1")
	write(t, filepath.Join(cwd, ".claude", "skills", "ok", "SKILL.md"), "fine")
	link(t, "../../../../shared.md", filepath.Join(cwd, ".claude", "skills", "in", "SKILL.md"))
	link(t, "../../../../../../.ssh/id_rsa", filepath.Join(cwd, ".claude", "skills", "k", "SKILL.md"))
	link(t, "../../../../.env", filepath.Join(cwd, ".claude", "skills", "env", "SKILL.md"))
	link(t, "/dev/zero", filepath.Join(cwd, ".claude", "skills", "zero", "SKILL.md"))
	write(t, filepath.Join(cwd, ".claude", "skills", "big", "SKILL.md"), strings.Repeat("x", 100))
	fifo := filepath.Join(cwd, ".claude", "skills", "fifo", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	skill := func(name string) string { return filepath.Join(cwd, ".claude", "skills", name, "SKILL.md") }

	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, want := range map[string]string{"ok": "fine", "in": "shared"} {
			if b, err := Read(cwd, skill(name), 50); err != nil || string(b) != want {
				t.Errorf("%s: %q, %v; want %q", name, b, err, want)
			}
		}
		var out *OutsideError
		if _, err := Read(cwd, skill("k"), 50); !errors.As(err, &out) || !Refused(err) || !strings.Contains(err.Error(), "outside the repository") {
			t.Errorf("link to ~/.ssh/id_rsa: %v, want an OutsideError", err)
		}
		var sens *SensitiveError
		if _, err := Read(cwd, skill("env"), 50); !errors.As(err, &sens) || !Refused(err) {
			t.Errorf("link to .env: %v, want a SensitiveError", err)
		}
		// The repository is the home folder when the user works there
		// without git: ~/.ssh is inside it, and still refused.
		link(t, "../../../.ssh/id_rsa", filepath.Join(home, ".claude", "skills", "h", "SKILL.md"))
		if _, err := Read(home, filepath.Join(home, ".claude", "skills", "h", "SKILL.md"), 50); !errors.As(err, &sens) {
			t.Errorf("link to ~/.ssh/id_rsa inside the root: %v, want a SensitiveError", err)
		}
		if _, err := Read(cwd, skill("zero"), 50); err == nil {
			t.Errorf("/dev/zero was read")
		}
		if _, err := Read(cwd, fifo, 50); !regular.IsNotRegular(err) || !Refused(err) || !strings.Contains(err.Error(), fifo) {
			t.Errorf("FIFO: %v, want a NotRegularError naming it", err)
		}
		var big *TooLargeError
		if _, err := Read(cwd, skill("big"), 50); !errors.As(err, &big) || !Refused(err) {
			t.Errorf("over the limit: %v, want a TooLargeError", err)
		}
		if b, more, err := Open(cwd).ReadTruncated(skill("big"), 50); err != nil || len(b) != 50 || !more {
			t.Errorf("ReadTruncated: %d bytes, more %v, %v", len(b), more, err)
		}
		if _, err := Read(cwd, skill("none"), 50); !errors.Is(err, fs.ErrNotExist) || Refused(err) {
			t.Errorf("missing: %v, want fs.ErrNotExist", err)
		}
		// The user's own file may link anywhere; its type still counts.
		if b, err := ReadOwn(skill("k"), 50); err != nil || string(b) != "PRIVATE KEY" {
			t.Errorf("ReadOwn: %q, %v", b, err)
		}
		if _, err := ReadOwn(fifo, 50); !regular.IsNotRegular(err) {
			t.Errorf("ReadOwn FIFO: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("reading a project file blocked")
	}
}
