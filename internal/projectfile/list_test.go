package projectfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// List names a folder's entries, refuses a link out of the repository and
// a credential-like folder, and stops at max.
func TestList(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	repo := filepath.Join(root, "repo")
	for _, d := range []string{".git", "src/sub", ".ssh"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"src/b.go", "src/a.go"} {
		if err := os.WriteFile(filepath.Join(repo, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(repo, "up")); err != nil {
		t.Fatal(err)
	}
	r := Open(repo)
	names, more, err := r.List(filepath.Join(repo, "src"), 10)
	if err != nil || more || strings.Join(names, ",") != "a.go,b.go,sub/" {
		t.Errorf("List(src) = %v %v %v", names, more, err)
	}
	if names, more, err := r.List(filepath.Join(repo, "src"), 2); err != nil || !more || len(names) != 2 {
		t.Errorf("List(src, 2) = %v %v %v", names, more, err)
	}
	var out *OutsideError
	if _, _, err := r.List(filepath.Join(repo, "up"), 10); !errors.As(err, &out) {
		t.Errorf("a link out of the repository: %v", err)
	}
	if _, _, err := r.List(filepath.Join(repo, ".ssh"), 10); err == nil || !Refused(err) {
		t.Errorf("a credential-like folder: %v", err)
	}
	if _, _, err := r.List(filepath.Join(repo, "src/a.go"), 10); err == nil {
		t.Error("a file listed as a folder")
	}
}
