//go:build unix

package session

import (
	"errors"
	"syscall"
)

// pidGone reports whether no process has this pid on this host. EPERM
// means it exists under another user.
func pidGone(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}
