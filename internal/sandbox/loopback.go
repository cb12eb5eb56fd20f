package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// LoopbackArg is the hidden subcommand WrapLoopback runs inside the
// sandbox: `tandem __sandbox-loopback HOST:PORT PATH ARGV...`.
const LoopbackArg = "__sandbox-loopback"

// WrapLoopback rewrites cmd (not yet started, not yet confined) to run
// through exe's loopback forward: inside the sandbox's network namespace,
// loopback is the sandbox's own, so a model provider on the host's
// loopback (a scripted server, a local gateway at localhost:4000) is not
// there. The forward listens on the same port inside and carries each
// connection through tandem's proxy (CONNECT hostport), which judges it
// against the allow-list like any other; then the program is started.
// Confine the rewritten cmd afterwards.
func WrapLoopback(cmd *exec.Cmd, exe, hostport string) {
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmd.Args = append([]string{exe, LoopbackArg, hostport, cmd.Path}, args...)
	cmd.Path = exe
}

// Loopback is the forward's entry point (cmd/tandem hands it os.Args[2:]).
// Where the port is taken (no private network: the fallback without user
// namespaces, where loopback is the host's and Landlock keeps TCP to the
// proxy), it forwards nothing and only runs the program.
func Loopback(args []string) int {
	if len(args) < 3 {
		return fail(errors.New("usage: tandem __sandbox-loopback HOST:PORT PATH ARGV... (started by tandem, not by hand)"))
	}
	hostport := args[0]
	_, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return fail(fmt.Errorf("loopback forward %q: %w", hostport, err))
	}
	proxy := strings.TrimPrefix(os.Getenv("HTTP_PROXY"), "http://")
	if ln, err := net.Listen("tcp4", "127.0.0.1:"+port); err == nil && proxy != "" {
		go serveLoopback(ln, proxy, hostport)
	}
	cmd := &exec.Cmd{Path: args[1], Args: args[2:], Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	return relay(cmd)
}

func serveLoopback(ln net.Listener, proxy, hostport string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := dialThrough(proxy, hostport)
			if err != nil {
				fmt.Fprintln(os.Stderr, "tandem sandbox: loopback forward:", err)
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(up, c)
				if tc, ok := up.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
				close(done)
			}()
			io.Copy(c, up)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			<-done
		}()
	}
}

// dialThrough opens a tunnel to hostport through the HTTP proxy at proxy.
func dialThrough(proxy, hostport string) (net.Conn, error) {
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("CONNECT %s: %w", hostport, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		c.Close()
		return nil, fmt.Errorf("CONNECT %s: %s: %s", hostport, resp.Status, strings.TrimSpace(string(body)))
	}
	if br.Buffered() > 0 {
		return nil, errors.New("CONNECT " + hostport + ": the proxy sent bytes before the tunnel")
	}
	return c, nil
}
