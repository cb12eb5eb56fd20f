package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
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
