package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
)

// ExecArg is the hidden subcommand Confine runs: `tandem __sandbox-exec
// POLICY PATH ARGV...`. cmd/tandem hands os.Args[2:] to Exec.
const ExecArg = "__sandbox-exec"

// probeArg as the policy makes Exec only report that it started (inside
// the namespaces Probe asked for).
const probeArg = "probe"

// Exec is the sandbox launcher's entry point, run in a process of its own
// (already in its namespaces when Confine made them): it brings up the
// private loopback and the forwarder to tandem's proxy, then restricts one
// locked thread with Landlock and seccomp and starts the command from it,
// so that the command and its children inherit the restrictions and the
// forwarder does not. It returns the command's exit status.
func Exec(args []string) int {
	if len(args) == 1 && args[0] == probeArg {
		return 0
	}
	if len(args) == 2 && args[0] == serveArg {
		p, err := decodePolicy(args[1])
		if err != nil {
			return fail(err)
		}
		return serve(p)
	}
	if len(args) < 3 {
		return fail(errors.New("usage: tandem __sandbox-exec POLICY PATH ARGV... (started by tandem, not by hand: use `tandem sandbox run -- CMD`)"))
	}
	p, err := decodePolicy(args[0])
	if err != nil {
		return fail(err)
	}
	env := os.Environ()
	if p.Namespaced {
		privateProc()
		if err := readOnlyBinds(p.ReadOnly); err != nil {
			return fail(err)
		}
		if err := loopbackUp(); err != nil {
			return fail(err)
		}
		if p.Network.ProxySocket != "" {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				return fail(fmt.Errorf("listen on the private loopback: %w", err))
			}
			go netproxy.Forward(context.Background(), ln, p.Network.ProxySocket)
			env = withProxy(env, ln.Addr().(*net.TCPAddr).Port)
		}
	} else if p.Network.ProxyPort > 0 {
		env = withProxy(env, p.Network.ProxyPort)
	}
	if p.TempDir != "" {
		env = setEnv(env, "TMPDIR", p.TempDir)
	}
	cmd := &exec.Cmd{Path: args[1], Args: args[2:], Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	for i := 0; i < p.ExtraFiles; i++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), "extra"))
	}
	// The command dies with this process (the thread that started it,
	// which is kept until the command ends).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the thread carries the restrictions and ends with
		// this goroutine.
		runtime.LockOSThread()
		if err := dropAmbient(); err != nil {
			started <- err
			return
		}
		abi := landlockABI()
		if err := applyLandlock(p, abi, !p.Namespaced); err != nil {
			started <- err
			return
		}
		if err := applySeccomp(!p.Namespaced); err != nil {
			started <- err
			return
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fail(err)
	}
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case <-done:
			st := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if st.Signaled() {
				signal.Reset(st.Signal())
				unix.Kill(os.Getpid(), st.Signal())
				return 128 + int(st.Signal())
			}
			return st.ExitStatus()
		}
	}
}

// fail reports a launcher error; 125 is what `env`-like launchers use for
// their own failure, so it is not mistaken for the command's status.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "tandem sandbox:", err)
	return 125
}

// privateProc mounts a /proc of the new pid namespace over the old one, so
// the command sees only its own processes. Best effort: where the kernel
// refuses (a container that masks parts of /proc), the host's /proc stays,
// and Landlock still keeps other processes' memory and environment out of
// reach (it refuses ptrace-class access outside the sandbox).
func privateProc() {
	if unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") != nil {
		return
	}
	unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	// /dev/shm is writable for the programs that need shared memory
	// (Python's multiprocessing, Chromium), and on the host it is one
	// folder for the whole machine: a private one keeps a command from
	// reading, planting or deleting what other programs keep there.
	unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=50%")
}

// readOnlyBinds mounts each existing path read-only over itself (in the
// launcher's own mount namespace), so a write root's protected places stay
// as they are. A remount must keep the flags the kernel locked on the
// original mount in a user namespace (nosuid, nodev, noexec, atime).
func readOnlyBinds(paths []string) error {
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // not there
		}
		if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("keep %s read-only: %w", p, err)
		}
		var st unix.Statfs_t
		if err := unix.Statfs(real, &st); err != nil {
			return fmt.Errorf("keep %s read-only: %w", p, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		for _, f := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
			if st.Flags&f[0] != 0 {
				flags |= uintptr(f[1])
			}
		}
		if err := unix.Mount("", real, "", flags, ""); err != nil {
			return fmt.Errorf("keep %s read-only: %w", p, err)
		}
	}
	return nil
}

// loopbackUp brings up lo in the new network namespace (it starts down).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	return nil
}

// withProxy points every HTTP client convention at the proxy; loopback
// stays direct (it is the sandbox's own).
func withProxy(env []string, port int) []string {
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = setEnv(env, k, url)
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		env = setEnv(env, k, "localhost,127.0.0.1,::1")
	}
	return env
}

func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, k+"="+v)
}
