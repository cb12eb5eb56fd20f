package mcp

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/mcp/mcpws"
)

// processGroup remembers a stdio server's process so that shutdown can kill
// its whole group (npx -> node -> the server, and whatever it spawned).
type processGroup struct{ cmd *exec.Cmd }

// Kill sends sig to the group, if the process was started.
func (p *processGroup) Kill(sig syscall.Signal) {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// newTransport builds the SDK transport for an expanded entry. stderr
// receives a stdio server's standard error; workDir resolves a relative cwd;
// confine, when set, puts a stdio server inside the session's sandbox.
// oauth, when set, signs the requests of an http or sse server.
func newTransport(c ServerConfig, workDir string, baseEnv []string, stderr *ring, confine func(*exec.Cmd) error, oauth auth.OAuthHandler) (sdk.Transport, *processGroup, error) {
	switch c.TransportType() {
	case TypeStdio:
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = workDir
		if c.Cwd != "" {
			cmd.Dir = c.Cwd
			if !filepath.IsAbs(c.Cwd) && workDir != "" {
				cmd.Dir = filepath.Join(workDir, c.Cwd)
			}
		}
		cmd.Env = append([]string(nil), baseEnv...)
		for k, v := range c.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = stderr
		// Own process group: Close kills the server and its children together.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if confine != nil {
			if err := confine(cmd); err != nil {
				return nil, nil, fmt.Errorf("start in the sandbox: %w", err)
			}
		}
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &processGroup{cmd: cmd}, nil
	case TypeHTTP:
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: headerClient(c.Headers), MaxRetries: 2, OAuthHandler: oauth}, nil, nil
	case TypeSSE:
		hc := headerClient(c.Headers)
		if oauth != nil {
			next := http.DefaultTransport
			if hc != nil {
				next = hc.Transport
			}
			hc = &http.Client{Transport: authRoundTripper{h: oauth, next: next}}
		}
		return &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: hc}, nil, nil
	case TypeWS:
		h := http.Header{}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		return &mcpws.ClientTransport{URL: c.URL, Header: h}, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown transport type %q", c.Type)
}

// headerClient returns an HTTP client that adds the configured headers
// (Authorization and the like) to every request.
func headerClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerRoundTripper{headers: headers, next: http.DefaultTransport}}
}

type headerRoundTripper struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		if v != "" { // an empty value (unset optional variable) would be sent as-is
			r.Header.Set(k, v)
		}
	}
	return h.next.RoundTrip(r)
}

// connectTimeout bounds the connect + initialize handshake (npx may have to
// download a package first).
const connectTimeout = 60 * time.Second

// session is one live connection to a server.
type session struct {
	cs     *sdk.ClientSession
	pg     *processGroup
	cancel context.CancelFunc // ends the context the transport lives in
	done   chan struct{}      // closed when the connection is gone
}

// dial connects one server. The context handed to the SDK lives as long as
// the session (the SSE transport ties its event stream to it), so the
// handshake timeout is a timer that cancels it rather than a deadline.
func dial(ctx context.Context, client *sdk.Client, c ServerConfig, workDir string, baseEnv []string, stderr *ring, confine func(*exec.Cmd) error, oauth auth.OAuthHandler) (*session, error) {
	t, pg, err := newTransport(c, workDir, baseEnv, stderr, confine, oauth)
	if err != nil {
		return nil, err
	}
	return dialTransport(ctx, client, t, pg)
}

// dialTransport connects over a built transport.
func dialTransport(ctx context.Context, client *sdk.Client, t sdk.Transport, pg *processGroup) (*session, error) {
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(connectTimeout, cancel)
	cs, err := client.Connect(ctx, t, nil)
	timedOut := !timer.Stop()
	if err != nil {
		cancel()
		pg.Kill(syscall.SIGKILL)
		if timedOut {
			return nil, fmt.Errorf("no answer to initialize within %s", connectTimeout)
		}
		return nil, err
	}
	sess := &session{cs: cs, pg: pg, cancel: cancel, done: make(chan struct{})}
	go func() { _ = cs.Wait(); close(sess.done) }()
	return sess, nil
}

// close ends the session: closing stdin lets a stdio server exit cleanly,
// then the process group is killed so no grandchild outlives it.
func (s *session) close() {
	s.pg.Kill(syscall.SIGTERM)
	_ = s.cs.Close()
	s.pg.Kill(syscall.SIGKILL)
	s.cancel()
}
