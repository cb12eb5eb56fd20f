package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Start starts cmd (not started, only read: Path, Args, Env, Dir, Stdin,
// Stdout, Stderr, ExtraFiles) inside the sandbox through the session's
// sandbox process, which it starts on first use: a command costs a
// request over a socket and a fork, not a start of tandem
// (docs/benchmarks.md). The streams must be files or nil (/dev/null).
// The command runs in a process group of its own, whose id is
// Process.Pid; it dies with the session (Close) and with tandem.
// cmd.SysProcAttr is not used.
func (s *Sandbox) Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has already started")
	}
	files, cleanup, err := commandFiles(cmd)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	srv, err := s.server()
	if err != nil {
		return nil, err
	}
	req := request{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir}
	if len(req.Args) == 0 {
		req.Args = []string{cmd.Path}
	}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	if req.Dir == "" {
		req.Dir, _ = os.Getwd()
	} else if !filepath.IsAbs(req.Dir) {
		req.Dir, _ = filepath.Abs(req.Dir)
	}
	return srv.start(req, files)
}

// Open starts the session's sandbox process now (Start would on the
// first command): a session pays tandem's start there, and learns at once
// when the sandbox cannot be set up here. Idempotent.
func (s *Sandbox) Open() error {
	_, err := s.server()
	return err
}

// StartConfined is Start in the form internal/tool.Starter takes.
func (s *Sandbox) StartConfined(cmd *exec.Cmd) (pid int, wait func() (syscall.WaitStatus, error), err error) {
	p, err := s.Start(cmd)
	if err != nil {
		return 0, nil, err
	}
	return p.Pid, p.Wait, nil
}

// Close stops the session's sandbox process and with it every command it
// started that is still running. The sandbox stays usable: the next Start
// starts a new one.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.stop()
	}
	return nil
}

// Process is a command started by Start.
type Process struct {
	// Pid is the command's process id in tandem's pid namespace, and the
	// id of its process group (signal -Pid to reach all of it).
	Pid int

	conn   *net.UnixConn
	done   chan struct{}
	status syscall.WaitStatus
	err    error
}

// Wait waits for the command to end and returns its status; an error
// when the sandbox process went away first (the session closed).
func (p *Process) Wait() (syscall.WaitStatus, error) {
	<-p.done
	return p.status, p.err
}

// Done is closed when the command has ended (Wait then returns at once).
func (p *Process) Done() <-chan struct{} { return p.done }

// fastServer is tandem's handle on the session's sandbox process.
type fastServer struct {
	ctl    *net.UnixConn
	sendMu sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}

	// live are the process groups of the commands still running: stop
	// kills them itself, whatever state the sandbox process is in (without
	// a pid namespace nothing else would end a command's children).
	liveMu sync.Mutex
	live   map[int]bool

	// guard removes the git program files commands create (guard_linux.go):
	// it watches while the sandbox process runs, and checks after each
	// command and when it stops.
	guard *gitGuard
}

// server returns the running sandbox process, starting it first when
// there is none (or it has gone).
func (s *Sandbox) server() (*fastServer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		select {
		case <-s.srv.exited:
			s.srv.stop()
			s.srv = nil
		default:
			return s.srv, nil
		}
	}
	srv, err := startServer(s)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	return srv, nil
}

func startServer(s *Sandbox) (*fastServer, error) {
	p := s.policy
	p.Namespaced = s.caps.UserNS && !p.NoNamespaces
	enc, err := p.encode()
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "control"), os.NewFile(uintptr(pair[1]), "control")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	ctl := fc.(*net.UnixConn)
	var stderr bytes.Buffer
	cmd := exec.Command(s.exe, ExecArg, serveArg, enc)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stderr = &limitedBuffer{b: &stderr, max: 4096}
	confineAttr(cmd, p.Namespaced)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// It dies with tandem: the death signal follows the thread that
	// started it, which is kept (locked) until it ends.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	srv := &fastServer{ctl: ctl, cmd: cmd, exited: make(chan struct{}), live: map[int]bool{}}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		close(srv.exited)
	}()
	if err := <-started; err != nil {
		ctl.Close()
		return nil, fmt.Errorf("sandbox: start the session's sandbox process (%s): %w", s.exe, err)
	}
	theirs.Close()
	buf := make([]byte, 4096)
	n, err := ctl.Read(buf)
	if err != nil || string(buf[:n]) != "ok" {
		srv.stop()
		msg := strings.TrimSpace(string(buf[:n]))
		if msg == "" {
			msg = strings.TrimSpace(stderr.String())
		}
		return nil, fmt.Errorf("sandbox: the session's sandbox process did not start: %s (`tandem sandbox check` shows what this system offers)", msg)
	}
	srv.guard = startGuard(p.GitDirs, s.onDenial)
	return srv, nil
}

// stop ends the commands still running and the sandbox process (closing
// the control socket makes it exit; the kill is for one that does not).
func (f *fastServer) stop() {
	f.liveMu.Lock()
	for pgid := range f.live {
		unix.Kill(-pgid, unix.SIGKILL)
	}
	f.liveMu.Unlock()
	f.ctl.Close()
	if f.cmd.Process != nil {
		select {
		case <-f.exited:
		case <-time.After(stopGrace):
			f.cmd.Process.Kill()
			<-f.exited
		}
	}
	f.guard.stop()
}

// stopGrace is how long the sandbox process gets to exit by itself.
const stopGrace = 2 * time.Second

// start sends one command: its connection and descriptors over the control
// socket, then the request over the connection; it returns once the
// command has started.
func (f *fastServer) start(req request, files []*os.File) (*Process, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: command socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "command"), os.NewFile(uintptr(pair[1]), "command")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: command socket: %w", err)
	}
	conn := fc.(*net.UnixConn)
	fds := []int{int(theirs.Fd())}
	for _, fl := range files {
		fds = append(fds, int(fl.Fd()))
	}
	f.sendMu.Lock()
	_, _, err = f.ctl.WriteMsgUnix([]byte{1}, unix.UnixRights(fds...), nil)
	f.sendMu.Unlock()
	runtime.KeepAlive(files)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: the session's sandbox process is gone (%w); the next command starts a new one", err)
	}
	theirs.Close()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: send the command: %w", err)
	}
	rd := &replyReader{conn: conn}
	r, fd, err := rd.next()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: the session's sandbox process did not answer: %w", err)
	}
	if !r.Started {
		conn.Close()
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("sandbox: %s", r.Error)
	}
	pid, err := pidfdPid(fd)
	unix.Close(fd)
	// The ack: the sandbox process may reap the command now.
	conn.Write([]byte{1})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sandbox: the started command's pid: %w", err)
	}
	p := &Process{Pid: pid, conn: conn, done: make(chan struct{})}
	f.liveMu.Lock()
	f.live[pid] = true
	f.liveMu.Unlock()
	go func() {
		defer close(p.done)
		// Before Wait returns: what the command planted is gone when its
		// caller looks.
		defer f.guard.check()
		defer conn.Close()
		defer func() {
			f.liveMu.Lock()
			delete(f.live, pid)
			f.liveMu.Unlock()
		}()
		r, fd, err := rd.next()
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil || !r.Exited {
			p.err = errors.New("sandbox: the session's sandbox process went away before the command ended")
			p.status = syscall.WaitStatus(syscall.SIGKILL)
			return
		}
		p.status = syscall.WaitStatus(r.Status)
	}()
	return p, nil
}

// replyReader reads the newline-ended replies and the descriptor that
// comes with one.
type replyReader struct {
	conn *net.UnixConn
	buf  []byte
}

func (r *replyReader) next() (reply, int, error) {
	fd := -1
	for {
		if i := bytes.IndexByte(r.buf, '\n'); i >= 0 {
			var rep reply
			err := json.Unmarshal(r.buf[:i], &rep)
			r.buf = r.buf[i+1:]
			return rep, fd, err
		}
		b := make([]byte, 512)
		oob := make([]byte, unix.CmsgSpace(4))
		n, oobn, _, _, err := r.conn.ReadMsgUnix(b, oob)
		if oobn > 0 {
			if fds, perr := parseRights(oob[:oobn]); perr == nil {
				for _, x := range fds {
					if fd < 0 {
						fd = x
					} else {
						unix.Close(x)
					}
				}
			}
		}
		r.buf = append(r.buf, b[:n]...)
		if err != nil && n == 0 {
			return reply{}, fd, err
		}
	}
}

// pidfdPid reads the pid a pidfd refers to, as tandem's pid namespace
// numbers it (the kernel translates it for the reader).
func pidfdPid(fd int) (int, error) {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || pid <= 0 {
				return 0, fmt.Errorf("pidfd names no live process (%q)", v)
			}
			return pid, nil
		}
	}
	return 0, errors.New("no Pid line in the pidfd's fdinfo (Linux 5.3+ needed)")
}

// commandFiles are cmd's stdin, stdout, stderr and extra files; nil
// streams get /dev/null. cleanup closes what was opened here.
func commandFiles(cmd *exec.Cmd) ([]*os.File, func(), error) {
	var opened []*os.File
	cleanup := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	var files []*os.File
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch v := s.(type) {
		case nil:
			flag := os.O_RDONLY
			if i > 0 {
				flag = os.O_WRONLY
			}
			f, err := os.OpenFile(os.DevNull, flag, 0)
			if err != nil {
				cleanup()
				return nil, nil, err
			}
			opened = append(opened, f)
			files = append(files, f)
		case *os.File:
			files = append(files, v)
		default:
			cleanup()
			return nil, nil, fmt.Errorf("sandbox: Start takes files (or nil) for stdin, stdout and stderr, got %T: use os.Pipe", s)
		}
	}
	for _, f := range cmd.ExtraFiles {
		if f == nil {
			cleanup()
			return nil, nil, errors.New("sandbox: Start does not take a nil extra file")
		}
		files = append(files, f)
	}
	return files, cleanup, nil
}

// limitedBuffer keeps the first max bytes of what the sandbox process says
// on stderr (why it did not start).
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
