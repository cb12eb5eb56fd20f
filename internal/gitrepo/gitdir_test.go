package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A repository with a submodule that has a submodule of its own, and one
// whose name holds a slash: each one's git folder under .git/modules has
// its hooks, config and links listed, as the top folder's are.
func TestProgramFilesListSubmodules(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	for _, r := range []string{"inner", "lib", "top"} {
		gitIn(t, base, "init", "-q", "-b", "main", r)
	}
	gitIn(t, filepath.Join(base, "inner"), "commit", "-q", "--allow-empty", "-m", "inner")
	gitIn(t, filepath.Join(base, "lib"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", filepath.Join(base, "inner"), "inner")
	gitIn(t, filepath.Join(base, "lib"), "commit", "-q", "-m", "lib")
	top := filepath.Join(base, "top")
	gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", filepath.Join(base, "lib"), "lib")
	gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "--name", "vendor/x", filepath.Join(base, "inner"), "vendor/x")
	gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")

	gd := filepath.Join(top, ".git")
	got := ProgramFiles(gd)
	for _, m := range []string{"modules/lib", "modules/lib/modules/inner", "modules/vendor/x"} {
		for _, f := range []string{"hooks", "config", "config.worktree", "commondir"} {
			p := filepath.Join(gd, m, f)
			if !slices.Contains(got, p) {
				t.Errorf("ProgramFiles lacks %s", p)
			}
		}
	}
	if slices.Contains(got, filepath.Join(gd, "modules", "vendor", "config")) {
		t.Error("modules/vendor, a part of a name, is listed as a git folder")
	}
}

// A folder filled with thousands of would-be git folders costs a bounded
// walk.
func TestProgramFilesBoundsModules(t *testing.T) {
	gd := t.TempDir()
	for i := range maxModules + 10 {
		d := filepath.Join(gd, "modules", "m"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	deep := filepath.Join(gd, "modules")
	for range maxModuleDepth + 3 {
		deep = filepath.Join(deep, "d")
	}
	os.MkdirAll(deep, 0o755)
	os.WriteFile(filepath.Join(deep, "HEAD"), []byte("x"), 0o644)
	if got, max := len(ProgramFiles(gd)), 4*(maxModules+1); got > max {
		t.Errorf("ProgramFiles listed %d paths, want at most %d", got, max)
	}
}
