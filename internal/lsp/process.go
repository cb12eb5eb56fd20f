package lsp

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/tandem-agent/tandem/internal/tool"
)

// process is a running server: its standard input and output as one
// stream, and its end.
type process struct {
	pid  int
	in   *os.File // the server's standard input, our end
	out  *os.File // the server's standard output, our end
	done chan struct{}
	err  error // why it ended, once done is closed
}

func (p *process) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *process) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close closes our ends of the pipes (the server sees end of input).
func (p *process) Close() error {
	p.in.Close()
	return p.out.Close()
}

// kill stops the server's whole process group.
func (p *process) kill() {
	if p.pid > 0 {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}

var _ io.ReadWriteCloser = (*process)(nil)

// startProcess starts argv in dir with env. With a starter (the session's
// sandbox) the server runs confined, like the session's commands; without,
// as tandem's child in a process group of its own. Its standard error is
// thrown away: servers log there, and the log is no diagnostic.
func startProcess(argv []string, dir string, env []string, starter tool.Starter) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	defer func() {
		// The child holds its ends now (or never will).
		inR.Close()
		outW.Close()
		devnull.Close()
	}()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, devnull
	p := &process{in: inW, out: outR, done: make(chan struct{})}
	var wait func() error
	if starter != nil {
		pid, w, err := starter.StartConfined(cmd)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("start %s in the sandbox: %w", argv[0], err)
		}
		p.pid = pid
		wait = func() error {
			ws, err := w()
			if err == nil && (ws.Exited() || ws.Signaled()) {
				err = fmt.Errorf("exited (%s)", describeStatus(ws))
			}
			return err
		}
	} else {
		cmd.SysProcAttr = procAttr()
		if err := cmd.Start(); err != nil {
			p.Close()
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		p.pid = cmd.Process.Pid
		wait = func() error {
			err := cmd.Wait()
			if err == nil {
				err = fmt.Errorf("exited (status 0)")
			}
			return err
		}
	}
	go func() {
		p.err = wait()
		close(p.done)
	}()
	return p, nil
}

func describeStatus(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("status %d", ws.ExitStatus())
}
