package testfiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// AsNobody runs the tests of this test binary that match run again as the
// user nobody (setpriv from util-linux), in a folder nobody owns that is
// also its HOME and TMPDIR, with env added, and returns their combined
// output. Tests run as root use it to see what a user sees, and to run
// what must never run as root (a command corpus that removes /etc/passwd
// should its sandbox fail). Without setpriv the test is skipped.
func AsNobody(t testing.TB, run string, env ...string) (string, error) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv (util-linux) to drop to nobody")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Every folder on the way must be nobody's to reach: not t.TempDir.
	dir, err := os.MkdirTemp("", "tandem-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	// A copy of the test binary nobody can run (go test's own is under a
	// folder only root can reach).
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(dir, filepath.Base(exe))
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", exe,
		"-test.run", run, "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TMPDIR="+dir, "HOME="+dir), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
