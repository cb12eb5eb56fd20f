package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// An installed toolchain's missing cache folders are made when the policy
// is built (a Landlock rule needs an existing folder, so the toolchain
// could not make them inside); a toolchain that is not installed gets
// none.
func TestBuildMakesInstalledToolchainsCaches(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin}
	p, err := Build(Input{Roots: []string{t.TempDir()}, Home: home, TempDir: t.TempDir(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".cache/go-build", "go/pkg/mod"} {
		if fi, err := os.Stat(filepath.Join(home, d)); err != nil || !fi.IsDir() {
			t.Errorf("~/%s was not made for the installed go: %v", d, err)
		}
	}
	for _, d := range []string{".npm", ".cargo", ".m2", ".gradle"} {
		if _, err := os.Stat(filepath.Join(home, d)); err == nil {
			t.Errorf("~/%s was made, but its toolchain is not installed", d)
		}
	}
	found := false
	for _, w := range p.WriteRoots {
		found = found || w == filepath.Join(home, ".cache/go-build")
	}
	if !found {
		t.Errorf("the go cache is not a write root: %v", p.WriteRoots)
	}
}
