package secretpaths

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHomePaths(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh", ".config/nvim"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	for _, f := range []string{"id_ed25519", ".bashrc", ".env", "notes.txt"} {
		os.WriteFile(filepath.Join(home, f), nil, 0o600)
	}
	got := HomePaths(home)
	for _, want := range []string{".ssh", ".aws", ".config/gh", ".docker/config.json", ".netrc", "id_ed25519", ".env"} {
		if !slices.Contains(got, filepath.Join(home, want)) {
			t.Errorf("HomePaths lacks ~/%s", want)
		}
	}
	for _, not := range []string{".bashrc", "notes.txt", ".config/nvim", ".config"} {
		if slices.Contains(got, filepath.Join(home, not)) {
			t.Errorf("HomePaths has ~/%s, which is no credential", not)
		}
	}
	for _, p := range got {
		if p != "/etc/shadow" && p != "/etc/gshadow" && !Sensitive(p, home) {
			t.Errorf("%s listed but Sensitive says no: the two must agree", p)
		}
	}
}
