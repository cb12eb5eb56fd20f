package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The sandbox as the users who run tandem get it: not root. Run as root
// (CI, this machine), the tests below would never see what a user sees:
// a launcher that is not root inside its user namespace loses every
// capability at the execve into tandem, and cannot mount or bring up
// loopback. So this test runs them again as nobody (setpriv).
func TestAsUnprivilegedUser(t *testing.T) {
	if os.Getenv("TANDEM_SANDBOX_UNPRIVILEGED") != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Getuid() != 0 {
		t.Skip("not root: every test here already runs unprivileged")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Every folder on the way must be nobody's to reach: not t.TempDir.
	dir, err := os.MkdirTemp("", "tandem-sandbox-nobody-")
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
	exe = filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", exe,
		"-test.run", "TestKernel|TestProtectedPlaces|TestNetworkOnlyThroughProxy|TestStarted|TestCommandHasNoCapabilities", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir, "TANDEM_SANDBOX_UNPRIVILEGED=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestProtectedPlacesStayReadOnly") ||
		!strings.Contains(string(out), "--- PASS: TestCommandHasNoCapabilities") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// A command inside has no capabilities, in the sandbox's user namespace
// or anywhere (the launcher's ambient ones are cleared before the fork).
// As root the ids map to root inside, which has them all there, as before.
func TestCommandHasNoCapabilities(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root inside the user namespace has its capabilities; TestAsUnprivilegedUser runs this as nobody")
	}
	s := testSandbox(t, newLayout(t).policy())
	if out, code := run(t, s, "caps"); code != 0 || out != "CapEff:\t0000000000000000" {
		t.Errorf("capabilities inside: code %d, %q; want none", code, out)
	}
}
