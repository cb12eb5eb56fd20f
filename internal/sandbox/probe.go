package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// Capabilities is what this machine offers the sandbox.
type Capabilities struct {
	OS string `json:"os"`
	// LandlockABI is the kernel's Landlock ABI version; 0: none.
	LandlockABI int `json:"landlock_abi"`
	// Seccomp: seccomp filters can be loaded.
	Seccomp bool `json:"seccomp"`
	// UserNS: an unprivileged process can make user and network (and pid,
	// mount) namespaces, so the network is a private one whose only way out
	// is tandem's proxy.
	UserNS bool `json:"user_namespaces"`
	// UserNSError is why not, when UserNS is false.
	UserNSError string `json:"user_namespaces_error,omitempty"`
	// SandboxExec is macOS's sandbox-exec when present (the boundary
	// there: a profile generated from the policy, SBPL).
	SandboxExec string `json:"sandbox_exec,omitempty"`
	// Bubblewrap is bwrap's path when installed (reported; the launcher
	// makes its namespaces itself and does not need it).
	Bubblewrap string `json:"bubblewrap,omitempty"`
}

// Usable reports whether commands can be confined here, naming what is
// missing and the fix when not.
func (c Capabilities) Usable() error {
	if c.OS == "darwin" {
		if c.SandboxExec == "" {
			return fmt.Errorf("%w: /usr/bin/sandbox-exec is missing; turn the sandbox off with --no-sandbox or `sandbox: off`", ErrUnavailable)
		}
		return nil
	}
	if c.OS != "linux" {
		return fmt.Errorf("%w: tandem's sandbox runs on Linux and macOS, not on %s; turn it off with --no-sandbox or `sandbox: off` (docs/sandbox.md)", ErrUnavailable, c.OS)
	}
	var missing []string
	if c.LandlockABI < 1 {
		missing = append(missing, "Landlock (Linux 5.13+ with landlock in the kernel's lsm= list)")
	}
	if !c.Seccomp {
		missing = append(missing, "seccomp filters")
	}
	if !c.UserNS && c.LandlockABI < 4 {
		missing = append(missing, "a private network: user namespaces ("+c.UserNSError+") or Landlock ABI 4+ for TCP rules")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s; run `tandem sandbox check` for details, or turn it off with --no-sandbox", ErrUnavailable, strings.Join(missing, "; "))
	}
	return nil
}

// Mode says which boundary commands get here.
func (c Capabilities) Mode() string {
	if c.Usable() != nil {
		return "unavailable"
	}
	if c.OS == "darwin" {
		return "sandbox-exec (Seatbelt profile; loopback is the machine's)"
	}
	if c.UserNS {
		return "landlock+seccomp+namespaces"
	}
	return "landlock+seccomp (TCP only to the proxy port)"
}

// Probe finds what the system offers; exe is the tandem binary (it is
// started once in new namespaces to see whether they work).
func Probe(exe string) Capabilities {
	c := Capabilities{OS: runtime.GOOS}
	if p, err := exec.LookPath("bwrap"); err == nil {
		c.Bubblewrap = p
	}
	probeKernel(&c, exe)
	return c
}
