// Package lsp runs a session's language servers (gopls, pyright,
// typescript-language-server, rust-analyzer, clangd, or any the config
// names) and hands the model the new errors its edits make: after a call
// that changed files, each file is sent to its server and the server's
// diagnostics for exactly that text are compared with what the file had
// before (docs/lsp.md). Servers start on first use, per root folder,
// inside the session's sandbox when it is on; a server that dies starts
// again on next use after a backoff; all stop with the session.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

// Options are a session's: where it works and how servers are run.
type Options struct {
	Settings Settings
	// Roots are the session's folders (the working folder first): files
	// outside them are not sent to a server.
	Roots []string
	// Env is the servers' environment (the session's, secrets scrubbed).
	Env []string
	// BinDirs are searched for a server's program after PATH (a trusted
	// project's node_modules/.bin).
	BinDirs []string
	// Starter starts servers inside the session's sandbox; nil: unconfined.
	Starter tool.Starter
	// Notice reports a server that cannot start or keeps crashing (once
	// per server and cause).
	Notice func(string)
	// RestartBase is the delay before a start after the second crash in a
	// row (default 500ms; the first restarts at once), doubling per crash
	// up to a minute.
	RestartBase time.Duration
	// Redact blanks secret values in what servers say (a message may
	// quote a file's text) before the model or an event sees it; nil:
	// nothing is blanked.
	Redact func(string) string
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// maxSourceBytes bounds a file sent to a server.
const maxSourceBytes = 8 << 20

// Manager holds one session's servers.
type Manager struct {
	opts Options

	mu      sync.Mutex
	slots   map[slotKey]*slot
	noticed map[string]bool
	closed  bool

	// baseline is each file's errors as last seen, what "new" is measured
	// against (see diagnose.go).
	baseMu   sync.Mutex
	baseline map[string][]Diagnostic
}

type slotKey struct{ server, root string }

// slot is one server for one root: running, starting, or waiting out a
// backoff after crashes.
type slot struct {
	mu        sync.Mutex // held while starting
	c         *client
	crashes   int       // in a row, without a start that lasted
	startedAt time.Time // of the current or last client
	notBefore time.Time // no start before this (backoff)
	err       error     // the last start's failure
}

// New returns a Manager; nothing starts until a file needs a server.
func New(opts Options) *Manager {
	if opts.Notice == nil {
		opts.Notice = func(string) {}
	}
	if opts.RestartBase <= 0 {
		opts.RestartBase = 500 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	return &Manager{opts: opts, slots: map[slotKey]*slot{}, noticed: map[string]bool{}, baseline: map[string][]Diagnostic{}}
}

// Settings are the session's LSP settings.
func (m *Manager) Settings() Settings { return m.opts.Settings }

// errClosed: the session ended.
var errClosed = errors.New("the session's language servers are stopped")

// clientFor is the running server for path (started, or started again
// after a crash, as needed); ok false when no server serves path.
func (m *Manager) clientFor(ctx context.Context, path string) (*client, string, error) {
	srv, langID, ok := m.opts.Settings.serverFor(path)
	if !ok {
		return nil, "", nil
	}
	bound := m.rootOf(path)
	if bound == "" {
		return nil, "", nil
	}
	root := rootFor(path, bound, srv.RootMarkers)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, "", errClosed
	}
	key := slotKey{srv.Name, root}
	s := m.slots[key]
	if s == nil {
		s = &slot{}
		m.slots[key] = s
	}
	m.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil && s.c.alive() {
		return s.c, langID, nil
	}
	now := m.opts.Now()
	if s.c != nil {
		// It died: a server that ran for a minute starts again at once,
		// one that keeps dying waits longer each time.
		if now.Sub(s.startedAt) > time.Minute {
			s.crashes = 0
		}
		s.crashes++
		s.notBefore = now.Add(m.backoff(s.crashes))
		dead := s.c
		s.c = nil
		go dead.stop()
		m.notice(srv.Name+"-crash", fmt.Sprintf("language server %s stopped (%v); it starts again on the next edit", srv.Name, dead.proc.err))
	}
	if now.Before(s.notBefore) {
		if s.err != nil {
			return nil, langID, s.err
		}
		return nil, langID, fmt.Errorf("%s is restarting after a crash", srv.Name)
	}
	argv, err := findCommand(srv, pathEnv(m.opts.Env), m.opts.BinDirs)
	if err != nil {
		// Looked up again in a minute. No notice: most projects lack
		// some language's server, and an edit of a file nobody checks
		// should read as it does without language servers at all
		// (docs/lsp.md names how to install each).
		s.err, s.notBefore = err, now.Add(time.Minute)
		return nil, langID, err
	}
	sctx, cancel := context.WithTimeout(ctx, time.Duration(m.opts.Settings.StartMS)*time.Millisecond)
	defer cancel()
	c, err := startClient(sctx, srv, argv, root, append(m.opts.Env, envList(srv.Env)...), m.opts.Starter)
	if err != nil {
		s.crashes++
		s.err, s.notBefore = err, now.Add(m.backoff(s.crashes))
		m.notice(srv.Name+"-start", err.Error())
		return nil, langID, err
	}
	m.mu.Lock()
	closed := m.closed
	if !closed {
		s.c, s.startedAt, s.err = c, now, nil
	}
	m.mu.Unlock()
	if closed {
		c.stop()
		return nil, langID, errClosed
	}
	return c, langID, nil
}

// backoff is the wait before a start after crashes in a row: none after
// the first (a server killed once starts again on the next edit), then
// RestartBase doubling up to a minute.
func (m *Manager) backoff(crashes int) time.Duration {
	if crashes <= 1 {
		return 0
	}
	d := m.opts.RestartBase
	for i := 2; i < crashes && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}

func (m *Manager) notice(key, msg string) {
	m.mu.Lock()
	seen := m.noticed[key]
	m.noticed[key] = true
	m.mu.Unlock()
	if !seen {
		m.opts.Notice(msg)
	}
}

// rootOf is the session root holding path, "" when none does.
func (m *Manager) rootOf(path string) string {
	for _, r := range m.opts.Roots {
		if within(path, r) {
			return r
		}
	}
	return ""
}

// Running names the servers running now (for the lsp tool's availability
// and workspace symbols).
func (m *Manager) running() []*client {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*client
	for _, s := range m.slots {
		if s.mu.TryLock() {
			if s.c != nil && s.c.alive() {
				out = append(out, s.c)
			}
			s.mu.Unlock()
		}
	}
	return out
}

// Close stops every server; the Manager starts none after.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	slots := m.slots
	m.slots = map[slotKey]*slot{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.c != nil {
				s.c.stop()
				s.c = nil
			}
		}()
	}
	wg.Wait()
}

func pathEnv(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) > 5 && env[i][:5] == "PATH=" {
			return env[i][5:]
		}
	}
	return os.Getenv("PATH")
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// readSource reads a file to send to a server: regular files only, and
// not one too large to be source.
func readSource(path string) ([]byte, error) {
	data, truncated, err := regular.ReadCapped(path, maxSourceBytes)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, fmt.Errorf("%s is over %d MiB: not sent to a language server", path, maxSourceBytes>>20)
	}
	return data, nil
}
