package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS

// confineAttr adds the namespaces to cmd's process attributes, keeping
// what the caller set (process group, death signal).
func confineAttr(cmd *exec.Cmd, namespaced bool) error {
	if !namespaced {
		return nil
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= nsFlags
	// The same ids inside as outside: files keep their owners, and the
	// command gains nothing over the host (capabilities in a user
	// namespace reach only what that namespace owns).
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// What the launcher does in its namespaces (mount a /proc, the
	// read-only binds, bring up loopback) needs these in its own user
	// namespace; a user other than root loses every capability at the
	// execve into tandem, unless they are ambient. The thread that starts
	// the command clears them again (dropAmbient): the command gets none.
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN}
	return nil
}

// dropAmbient clears the calling thread's ambient capabilities, so that a
// program it starts (not root inside: the ids are mapped to themselves)
// has none in the sandbox's user namespace.
func dropAmbient() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	return nil
}

func probeKernel(c *Capabilities, exe string) {
	c.LandlockABI = landlockABI()
	c.Seccomp = seccompAvailable()
	cmd := exec.Command(exe, ExecArg, probeArg)
	confineAttr(cmd, true)
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		c.UserNS = true
	default:
		c.UserNSError = strings.TrimSpace(err.Error() + " " + string(out))
	}
}
