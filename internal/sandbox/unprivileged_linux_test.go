package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/testfiles"
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
	out, err := testfiles.AsNobody(t, "TestKernel|TestProtectedPlaces|TestNetworkOnlyThroughProxy|TestStarted|TestCommandHasNoCapabilities",
		"TANDEM_SANDBOX_UNPRIVILEGED=1")
	if err != nil || !strings.Contains(out, "--- PASS: TestProtectedPlacesStayReadOnly") ||
		!strings.Contains(out, "--- PASS: TestCommandHasNoCapabilities") {
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
