package secrets

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// memfdName is the hand-over descriptor's name; Receive reads a
// descriptor only when it is this memfd, never whatever an inherited
// variable happens to point at.
const memfdName = "tandem-secrets"

// maxHandover bounds what Receive reads (an environment is at most a few
// hundred KiB).
const maxHandover = 4 << 20

// Handover keeps tandem's credentials out of /proc/PID/environ (and `ps
// e`), which shows the environment a process was exec'd with whatever it
// later unsets: it writes the held variables of env (Held), then the extra
// KEY=VALUE entries (a --token taken off the command line; later entries
// win), to a memfd and re-executes /proc/self/exe — the same pid, so a
// parent waiting for it or signalling it sees no difference — with argv,
// the rest of env and HandoverFDVar naming the memfd. It returns nil
// without doing anything when there is nothing to move; otherwise it
// returns only if the re-exec failed (the process then carries on as it
// is).
func Handover(argv, env, extra []string) error {
	if os.Getenv(HandoverFDVar) != "" {
		return nil // already re-executed: never loop
	}
	keep, held := splitHeld(env)
	held = append(held, extra...)
	if len(held) == 0 {
		return nil
	}
	fd, err := unix.MemfdCreate(memfdName, 0) // no CLOEXEC: the new image inherits it
	if err != nil {
		return fmt.Errorf("credential hand-over: memfd_create: %w", err)
	}
	if err := writeAll(fd, encodeHeld(held)); err != nil {
		unix.Close(fd)
		return err
	}
	keep = append(keep, HandoverFDVar+"="+strconv.Itoa(fd))
	err = syscall.Exec("/proc/self/exe", argv, keep)
	unix.Close(fd)
	return fmt.Errorf("credential hand-over: re-execute tandem: %w", err)
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("credential hand-over: write memfd: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// Receive takes a hand-over this process got from Handover: each
// credential is set in the process's own environment (which os.Getenv and
// the os.Environ of child processes read, but /proc/PID/environ does not
// show), the descriptor is closed and HandoverFDVar unset, so no child
// inherits either. It reports whether there was a hand-over.
func Receive() (bool, error) {
	v, ok := os.LookupEnv(HandoverFDVar)
	if !ok {
		return false, nil
	}
	os.Unsetenv(HandoverFDVar)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return false, fmt.Errorf("credential hand-over: %s=%q is not a descriptor; unset it", HandoverFDVar, v)
	}
	if link, err := os.Readlink("/proc/self/fd/" + v); err != nil || !strings.HasPrefix(link, "/memfd:"+memfdName) {
		// Not ours (an inherited variable): leave the descriptor alone.
		return false, fmt.Errorf("credential hand-over: descriptor %d is not tandem's; unset %s", fd, HandoverFDVar)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, fmt.Errorf("credential hand-over: %w", err)
	}
	if st.Size > maxHandover {
		return false, fmt.Errorf("credential hand-over: %d bytes is more than an environment holds", st.Size)
	}
	buf := make([]byte, st.Size)
	for off := 0; off < len(buf); {
		n, err := unix.Pread(fd, buf[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false, fmt.Errorf("credential hand-over: read: %v", err)
		}
		off += n
	}
	entries, err := decodeHeld(buf)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		os.Setenv(e[0], e[1])
	}
	return true, nil
}
