package trust

import (
	"errors"
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

// Trusting / or the home folder (or a folder above it) would trust every
// repository under it: refused without --broad (AddBroad), naming it.
func TestBroadFoldersNeedConfirmation(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", "u")
	proj := filepath.Join(home, "src", "p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
	s.Home = home
	for _, d := range []string{"/", home, filepath.Dir(home)} {
		var be *BroadError
		if _, err := s.Add(d); !errors.As(err, &be) || !strings.Contains(err.Error(), "tandem trust --broad") {
			t.Errorf("Add(%s): %v", d, err)
		}
	}
	if l, _ := s.List(); len(l) != 0 {
		t.Fatalf("a refused folder was stored: %v", l)
	}
	if _, err := s.Add(proj); err != nil {
		t.Fatal(err)
	}
	realHome, err := s.AddBroad(home)
	if err != nil {
		t.Fatal(err)
	}
	// Revoking the project leaves it trusted through home: said, not hidden.
	real, stillBy, err := s.RemoveAndCheck(proj)
	if err != nil || stillBy != realHome || real == "" {
		t.Errorf("revoke under a trusted parent: %q %q %v", real, stillBy, err)
	}
	if _, stillBy, err := s.RemoveAndCheck(home); err != nil || stillBy != "" {
		t.Errorf("revoke home: %q %v", stillBy, err)
	}
}
