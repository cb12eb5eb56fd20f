package claudecode

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is one running CLI in its own process group.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wmu    sync.Mutex
	closed bool

	lines   chan Msg      // parsed stdout lines; closed at EOF
	stop    chan struct{} // closed by shutdown so the reader never blocks
	exited  chan struct{} // closed after Wait returns
	waitErr error
	readErr error
	stderr  *tailBuffer
	log     func(string)
}

// startProc launches the CLI. The reader goroutine uses
// bufio.Reader.ReadBytes so that lines of several MB (base64 images, big
// tool results) are read whole.
//
// confine, when set, puts the CLI inside the session's OS sandbox (it and
// every command it runs); an error there means the CLI must not start.
func startProc(path string, args, env []string, dir string, log func(string), confine func(*exec.Cmd) error) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if confine != nil {
		if err := confine(cmd); err != nil {
			return nil, fmt.Errorf("put the claude CLI in the sandbox: %w", err)
		}
	}
	// Grandchildren (a tool's background process) may hold stderr open;
	// do not let Wait hang on them.
	cmd.WaitDelay = 2 * time.Second
	p := &proc{
		cmd: cmd, lines: make(chan Msg, 64), stop: make(chan struct{}), exited: make(chan struct{}),
		stderr: &tailBuffer{max: 16 << 10}, log: log,
	}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("claude stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("claude stdout pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	p.stdin = stdin
	go p.read(stdout)
	return p, nil
}

func (p *proc) read(stdout io.Reader) {
	defer func() {
		close(p.lines)
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	r := bufio.NewReaderSize(stdout, 256<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			msg, ok, perr := ParseLine(line)
			switch {
			case perr != nil:
				p.log(fmt.Sprintf("claude-code: skipping undecodable line (%d bytes): %v", len(line), perr))
			case ok:
				select {
				case p.lines <- msg:
				case <-p.stop:
					_, _ = io.Copy(io.Discard, r)
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.readErr = err
			}
			return
		}
	}
}

// send writes one JSON line to stdin.
func (p *proc) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message for claude: %w", err)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.closed {
		return errors.New("claude stdin already closed")
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to claude: %w", err)
	}
	return nil
}

func (p *proc) closeStdin() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if !p.closed {
		p.closed = true
		_ = p.stdin.Close()
	}
}

// signalGroup signals the whole process group and every descendant's own
// group (tools that Claude Code starts in a session of their own).
func (p *proc) signalGroup(sig syscall.Signal) {
	if p.cmd.Process == nil {
		return
	}
	pid := p.cmd.Process.Pid
	desc := descendants(pid)
	_ = syscall.Kill(-pid, sig)
	for _, d := range desc {
		_ = syscall.Kill(-d, sig)
		_ = syscall.Kill(d, sig)
	}
}

// shutdown ends the process the gentle way first: closing stdin lets the
// CLI flush its transcript (killing right away can lose the last message),
// then SIGTERM, then SIGKILL to the whole group. grace bounds each wait.
func (p *proc) shutdown(grace time.Duration) {
	begin := time.Now()
	defer func() {
		p.log(fmt.Sprintf("claude-code: process ended (%s) %s after shutdown began", p.exitStatus(), time.Since(begin).Round(time.Millisecond)))
	}()
	p.closeStdin()
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	if p.waitExit(grace) {
		p.signalGroup(syscall.SIGKILL) // leftover children of tools
		return
	}
	p.signalGroup(syscall.SIGTERM)
	if p.waitExit(grace) {
		p.signalGroup(syscall.SIGKILL)
		return
	}
	p.signalGroup(syscall.SIGKILL)
	p.waitExit(grace)
}

// kill ends the group at once (timeouts).
func (p *proc) kill() {
	p.closeStdin()
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	p.signalGroup(syscall.SIGKILL)
	p.waitExit(5 * time.Second)
}

func (p *proc) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitStatus describes how the process ended, for crash reports.
func (p *proc) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return "still running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.String()
	}
	return p.waitErr.Error()
}

// tailBuffer keeps the last max bytes written (stderr, for crash reports).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
