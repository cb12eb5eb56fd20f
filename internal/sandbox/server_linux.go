package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
)

// The session's sandbox process (docs/sandbox.md, "How it is built"): one
// re-execution of tandem per session, already inside the session's user,
// network, pid and mount namespaces, running the bridge to the proxy. It
// takes each command over its control socket and starts it from a thread
// of its own that it restricts first (Landlock, seccomp, no_new_privs: all
// per thread and inherited by what the thread starts); that thread is
// never unlocked, so the Go runtime ends it with its goroutine and no
// other work ever runs under (or escapes) the restrictions. Paying tandem's
// start-up once per session instead of once per command is the point
// (docs/decisions/sandbox-fast-path.md).

// serveArg as the first argument makes Exec the session's sandbox process:
// `tandem __sandbox-exec serve POLICY`, its control socket on fd 3.
const serveArg = "serve"

// controlFD is the control socket's descriptor in the sandbox process.
const controlFD = 3

// request is what tandem sends over a command's own connection.
type request struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir,omitempty"`
}

// reply is what the sandbox process answers on that connection: started
// (with the command's pidfd as SCM_RIGHTS), then exited with the wait
// status; or an error instead of started.
type reply struct {
	Started bool   `json:"started,omitempty"`
	Exited  bool   `json:"exited,omitempty"`
	Status  int    `json:"status,omitempty"`
	Error   string `json:"error,omitempty"`
}

type server struct {
	env     []string // additions: the proxy, TMPDIR
	ruleset int
	filter  *unix.SockFprog

	// mu is held from the fork to the command's registration, and by the
	// reaper while it looks a pid up: a command that ends at once is
	// still found. Any other pid is an orphan reparented to this process.
	mu      sync.Mutex
	waiting map[int]*child // started commands by pid
	// poke wakes the reaper when a command's pidfd has gone to tandem.
	poke chan struct{}

	// mounted are the read-only places bound at setup (resolved), which
	// remount puts back when one was replaced from outside; bindMu keeps
	// two commands' starts from binding the same place twice.
	mounted []string
	bindMu  sync.Mutex
}

// child is a started command. Until tandem has its pidfd (sent), the
// command is not reaped even when it has ended: tandem reads its pid
// through the pidfd, which names no pid once the process is reaped.
type child struct {
	done chan syscall.WaitStatus
	sent bool
}

// serve runs the session's sandbox process until tandem closes the
// control socket (or dies: the parent-death signal).
func serve(p Policy) int {
	ctlFile := os.NewFile(controlFD, "control")
	fc, err := net.FileConn(ctlFile)
	ctlFile.Close()
	if err != nil {
		return fail(fmt.Errorf("control socket: %w", err))
	}
	ctl := fc.(*net.UnixConn)
	s := &server{waiting: map[int]*child{}, poke: make(chan struct{}, 1)}
	if err := s.setup(p); err != nil {
		ctl.Write([]byte("error: " + err.Error()))
		return fail(err)
	}
	go s.reap()
	if _, err := ctl.Write([]byte("ok")); err != nil {
		return fail(err)
	}
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4*64))
	for {
		n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			s.killAll()
			return 0
		}
		fds, err := parseRights(oob[:oobn])
		if err != nil || len(fds) < 4 {
			closeAll(fds)
			continue
		}
		go s.handle(fds[0], fds[1:])
	}
}

// setup does once what every command shares: the private /proc, the
// read-only places, loopback and the bridge, the ruleset and the filter.
func (s *server) setup(p Policy) error {
	if p.Namespaced {
		privateProc()
		if err := readOnlyBinds(p.ReadOnly); err != nil {
			return err
		}
		for _, ro := range p.ReadOnly {
			if real, err := filepath.EvalSymlinks(ro); err == nil {
				s.mounted = append(s.mounted, real)
			}
		}
		if err := loopbackUp(); err != nil {
			return err
		}
		if p.Network.ProxySocket != "" {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				return fmt.Errorf("listen on the private loopback: %w", err)
			}
			go netproxy.Forward(context.Background(), ln, p.Network.ProxySocket)
			s.env = withProxy(s.env, ln.Addr().(*net.TCPAddr).Port)
		}
	} else if p.Network.ProxyPort > 0 {
		s.env = withProxy(s.env, p.Network.ProxyPort)
	}
	if p.TempDir != "" {
		s.env = setEnv(s.env, "TMPDIR", p.TempDir)
	}
	var err error
	if s.ruleset, err = landlockRuleset(p, landlockABI(), !p.Namespaced); err != nil {
		return err
	}
	s.filter, err = seccompProgram(!p.Namespaced)
	return err
}

// handle runs one command: conn is its connection to tandem, files its
// stdin, stdout, stderr and extra descriptors.
func (s *server) handle(conn int, files []int) {
	f := os.NewFile(uintptr(conn), "command")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		closeAll(files)
		return
	}
	c := fc.(*net.UnixConn)
	defer c.Close()
	var req request
	if err := json.NewDecoder(c).Decode(&req); err != nil {
		closeAll(files)
		return
	}
	if err := s.remount(); err != nil {
		closeAll(files)
		send(c, reply{Error: err.Error()}, -1)
		return
	}
	env := req.Env
	for _, kv := range s.env {
		k, v, _ := cut(kv)
		env = setEnv(env, k, v)
	}
	type start struct {
		pid int
		err error
	}
	started := make(chan start, 1)
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		// Never unlocked: the thread carries the restrictions and ends
		// with this goroutine, after the command (whose parent-death
		// signal is tied to it).
		runtime.LockOSThread()
		if err := dropAmbient(); err != nil {
			started <- start{err: err}
			return
		}
		if err := restrictThread(s.ruleset); err != nil {
			started <- start{err: err}
			return
		}
		if err := loadSeccomp(s.filter); err != nil {
			started <- start{err: err}
			return
		}
		attr := &syscall.ProcAttr{Dir: req.Dir, Env: env, Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
		for _, fd := range files {
			attr.Files = append(attr.Files, uintptr(fd))
		}
		ch := &child{done: make(chan syscall.WaitStatus, 1)}
		s.mu.Lock()
		pid, err := syscall.ForkExec(req.Path, req.Args, attr)
		if err == nil {
			s.waiting[pid] = ch
		}
		s.mu.Unlock()
		closeAll(files)
		started <- start{pid, err}
		if err == nil {
			exited <- <-ch.done
		}
	}()
	st := <-started
	if st.err != nil {
		send(c, reply{Error: fmt.Sprintf("start %s: %v", req.Path, st.err)}, -1)
		return
	}
	pidfd, err := unix.PidfdOpen(st.pid, 0)
	if err != nil {
		unix.Kill(-st.pid, unix.SIGKILL)
		s.sent(st.pid)
		send(c, reply{Error: fmt.Sprintf("pidfd of %s: %v", req.Path, err)}, -1)
		<-exited
		return
	}
	err = send(c, reply{Started: true}, pidfd)
	unix.Close(pidfd)
	if err != nil {
		unix.Kill(-st.pid, unix.SIGKILL)
	}
	// The answer is in tandem's socket buffer with the pidfd, which
	// tandem reads before it looks at anything else: but a pidfd read
	// after the reap names no pid, so the reap waits for tandem's ack.
	var ack [1]byte
	c.Read(ack[:])
	s.sent(st.pid)
	// tandem closing the connection before the command ended means it
	// gave up on it: the command's group goes.
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		c.Read(b[:])
		close(gone)
	}()
	select {
	case ws := <-exited:
		send(c, reply{Exited: true, Status: int(ws)}, -1)
	case <-gone:
		unix.Kill(-st.pid, unix.SIGKILL)
		<-exited
	}
}

// remount binds again, read-only, each place bound at setup that is
// writable now. The kernel drops a mount in this namespace when the file
// under it is renamed over or removed outside (`git config` run outside
// writes .git/config anew and renames it over the old one), and this
// process keeps its mount namespace for the whole session: without this,
// every later command could write the new file.
func (s *server) remount() error {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	for _, p := range s.mounted {
		var st unix.Statfs_t
		if unix.Statfs(p, &st) != nil || st.Flags&unix.ST_RDONLY != 0 {
			continue // gone, or still read-only
		}
		if err := readOnlyBinds([]string{p}); err != nil {
			return fmt.Errorf("%w (a protected place was replaced outside the sandbox; the command was not started)", err)
		}
	}
	return nil
}

// sent marks pid's pidfd as delivered: the reaper may now collect it.
func (s *server) sent(pid int) {
	s.mu.Lock()
	if ch, ok := s.waiting[pid]; ok {
		ch.sent = true
	}
	s.mu.Unlock()
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// reap collects every child: the commands (handed to their handlers) and,
// as the pid namespace's first process, the orphans reparented to it. It
// looks before it reaps (WNOWAIT), and leaves a command whose pidfd tandem
// does not have yet for the next wake-up.
func (s *server) reap() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	for {
		select {
		case <-sigs:
		case <-s.poke:
		}
		for {
			var info unix.Siginfo
			if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) != nil {
				break
			}
			pid := siginfoPid(&info)
			if pid <= 0 {
				break
			}
			s.mu.Lock()
			ch, ok := s.waiting[pid]
			if ok && !ch.sent {
				s.mu.Unlock()
				break
			}
			var ws syscall.WaitStatus
			if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid && err == nil && ok {
				delete(s.waiting, pid)
				ch.done <- ws
			}
			s.mu.Unlock()
		}
	}
}

// siginfoPid is si_pid of a waitid result: after si_signo, si_errno,
// si_code and the padding that aligns the union (on 64-bit Linux).
func siginfoPid(info *unix.Siginfo) int {
	return int(*(*int32)(unsafe.Pointer(uintptr(unsafe.Pointer(info)) + 16)))
}

// killAll ends every command's group when the session ends (inside a pid
// namespace the kernel would do it as this process exits; without one,
// this is what does).
func (s *server) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid := range s.waiting {
		unix.Kill(-pid, unix.SIGKILL)
	}
}

func send(c *net.UnixConn, r reply, fd int) error {
	b, _ := json.Marshal(r)
	b = append(b, '\n')
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	_, _, err := c.WriteMsgUnix(b, oob, nil)
	return err
}

func parseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			closeAll(fds)
			return nil, err
		}
		fds = append(fds, got...)
	}
	if len(fds) == 0 {
		return nil, errors.New("no descriptors")
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

func cut(kv string) (k, v string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
