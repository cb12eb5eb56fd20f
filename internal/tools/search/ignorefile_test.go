package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An ignore file is read as a project file of its repository: one over
// projectfile.IgnoreLimit, or a link out of the repository, gives no rules
// (and costs no more than the limit); a plain one does.
func TestIgnoreFileReadAsProjectFile(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "big"), filepath.Join(repo, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(repo, ".gitignore"):        "plain.txt\n",
		filepath.Join(repo, "big", ".gitignore"): "big.txt\n" + strings.Repeat("#"+strings.Repeat("x", 99)+"\n", 11<<10),
		filepath.Join(base, "outside-ignore"):    "out.txt\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../outside-ignore", filepath.Join(repo, "out", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if got := readIgnoreFile(filepath.Join(repo, ".gitignore"), ""); len(got) != 1 {
		t.Errorf("plain .gitignore: %d rules, want 1", len(got))
	}
	if got := readIgnoreFile(filepath.Join(repo, "big", ".gitignore"), "big/"); len(got) != 0 {
		t.Errorf("a .gitignore over the limit gave %d rules, want none", len(got))
	}
	if got := readIgnoreFile(filepath.Join(repo, "out", ".gitignore"), "out/"); len(got) != 0 {
		t.Errorf("a .gitignore linking out of the repository gave %d rules, want none", len(got))
	}
}
