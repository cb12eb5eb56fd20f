package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// child is a helper process: the bench re-runs its own binary with a
// -child mode, so that the model server and (in -idle) the SSE clients do
// not share the measured server's process, its Go scheduler and its heap,
// as they would not in use.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startChild runs this binary with args and returns once it printed its
// first line (its answer: a URL, "ready", ...).
func startChild(args ...string) (*child, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	line, err := c.line()
	if err != nil {
		c.stop()
		return nil, "", fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	return c, line, nil
}

// line is the child's next line of output.
func (c *child) line() (string, error) {
	if !c.out.Scan() {
		if err := c.out.Err(); err != nil {
			return "", err
		}
		return "", io.ErrUnexpectedEOF
	}
	return c.out.Text(), nil
}

// stop closes the child's stdin (its signal to end) and waits for it.
func (c *child) stop() {
	c.stdin.Close()
	c.cmd.Wait()
}

// waitStdin blocks a child until its parent closes stdin or exits.
func waitStdin() { io.Copy(io.Discard, os.Stdin) }
