package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStore(t *testing.T) {
	data, root := t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	proj, other := filepath.Join(root, "proj"), filepath.Join(root, "proj-other")
	for _, d := range []string{filepath.Join(proj, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(data)
	if _, ok, err := s.Trusted(proj); ok || err != nil {
		t.Fatalf("empty store trusts %s: %v", proj, err)
	}
	if got, err := s.Add(proj); err != nil || got != proj {
		t.Fatalf("add: %q %v", got, err)
	}
	if r, ok, _ := s.Trusted(filepath.Join(proj, "sub")); !ok || r != proj {
		t.Errorf("a subfolder is covered: %q %v", r, ok)
	}
	if _, ok, _ := s.Trusted(other); ok {
		t.Error("a sibling sharing the name's prefix must not be covered")
	}
	if _, err := s.Add(filepath.Join(root, "missing")); err == nil {
		t.Error("trusting a missing folder should fail")
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode: %v %v", fi, err)
	}
	if _, err := s.Remove(other); err == nil || !strings.Contains(err.Error(), "tandem trust --list") {
		t.Errorf("revoking an untrusted folder: %v", err)
	}
	if _, err := s.Remove(proj); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Errorf("after revoke: %v", list)
	}
	if err := os.WriteFile(s.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Trusted(proj); err == nil || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("a corrupt trust file must be an error naming it, never trust: %v", err)
	}
}
