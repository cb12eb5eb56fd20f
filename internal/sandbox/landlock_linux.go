package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Landlock rights, grouped by what the policy says.
const (
	fsRead  = llExecute | llReadFile | llReadDir
	fsWrite = llWriteFile | llRemoveDir | llRemoveReg | llMakeChar | llMakeDir | llMakeReg |
		llMakeSock | llMakeFifo | llMakeBlock | llMakeSym
	fsReferV2    = llRefer
	fsTruncateV3 = llTruncate
)

// devWritable are the device files any program may write: the bit
// buckets, the terminal, the random sources. Not /dev as a whole: a disk's
// device file belongs to root, and so do we.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts",
	"/dev/random", "/dev/urandom", "/dev/shm"}

// handledFS is every filesystem right the kernel's ABI knows that the
// policy decides (ioctl on devices is left alone: terminals need it, and
// TIOCSTI is refused by seccomp).
func handledFS(abi int) uint64 {
	h := uint64(fsRead | fsWrite)
	if abi >= 2 {
		h |= fsReferV2
	}
	if abi >= 3 {
		h |= fsTruncateV3
	}
	return h
}

// applyLandlock restricts the calling thread (and what it starts) to p.
// Errors name what failed; the caller refuses to run the command then:
// the sandbox is never silently off.
func applyLandlock(p Policy, abi int, tcpFallback bool) error {
	fd, err := landlockRuleset(p, abi, tcpFallback)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return restrictThread(fd)
}

// restrictThread puts the calling thread (and what it starts from now on)
// under the ruleset fd; a ruleset serves any number of threads, so the
// session's sandbox process builds it once.
func restrictThread(fd int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llRestrictSelf(fd); err != nil {
		return fmt.Errorf("landlock restrict: %w", err)
	}
	return nil
}

// landlockRuleset builds p's ruleset and returns its descriptor.
func landlockRuleset(p Policy, abi int, tcpFallback bool) (rfd int, err error) {
	if abi < 1 {
		return -1, errors.New("landlock is not available on this kernel (it needs Linux 5.13+ with landlock in the lsm= list)")
	}
	handled := handledFS(abi)
	write := handled &^ uint64(fsRead)
	attr := llRulesetAttr{handledFS: handled}
	if tcpFallback {
		if abi < 4 {
			return -1, fmt.Errorf("no network namespace and landlock ABI %d has no TCP rules (needs 4): cannot keep the network to the proxy", abi)
		}
		attr.handledNet = llConnectTCP
	}
	if abi >= 6 {
		// No signals to processes outside the sandbox (tandem itself), no
		// abstract unix sockets outside it (a desktop bus, X11).
		attr.scoped = llScopeAbstractUnix | llScopeSignal
	}
	fd, err := llCreateRuleset(&attr)
	if err != nil {
		return -1, fmt.Errorf("landlock create ruleset: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
		}
	}()

	full, list := readRules(p.DenyRead)
	for _, d := range full {
		if err := addPath(fd, d, fsRead); err != nil {
			return -1, err
		}
	}
	for _, d := range list {
		if err := addPath(fd, d, llReadDir); err != nil {
			return -1, err
		}
	}
	roots := append(append([]string(nil), p.WriteRoots...), p.TempDir)
	for _, d := range roots {
		if d == "" {
			continue
		}
		if deniedBy(d, p.DenyRead) != "" {
			continue // a write root inside a secret folder gets no rights at all
		}
		if err := addPath(fd, d, handled); err != nil {
			return -1, err
		}
	}
	for _, d := range devWritable {
		rights := uint64(llWriteFile | llReadFile)
		if abi >= 3 {
			rights |= fsTruncateV3
		}
		if d == "/dev/pts" || d == "/dev/shm" {
			rights |= llReadDir
			if d == "/dev/shm" {
				rights = write | fsRead
			}
		}
		if err := addPath(fd, d, rights&handled); err != nil {
			return -1, err
		}
	}
	if tcpFallback && p.Network.ProxyPort > 0 {
		if err := llAddPort(fd, llConnectTCP, p.Network.ProxyPort); err != nil {
			return -1, fmt.Errorf("landlock allow the proxy port %d: %w", p.Network.ProxyPort, err)
		}
	}
	return fd, nil
}

// addPath adds a rule for path; a path that does not exist is skipped (a
// policy may name caches not made yet), a file gets only file rights.
func addPath(fd int, path string, rights uint64) error {
	if rights == 0 {
		return nil
	}
	f, err := os.OpenFile(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil
		}
		return fmt.Errorf("landlock open %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.IsDir() {
		rights &= llExecute | llReadFile | llWriteFile | fsTruncateV3
	}
	if err := llAddPath(fd, rights, int(f.Fd())); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", filepath.Clean(path), err)
	}
	return nil
}
