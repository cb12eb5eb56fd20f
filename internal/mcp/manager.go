package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

// DefaultReadyWait is how long `tandem run` should wait for servers before
// the first model call: long enough for a local node server, short enough
// that a broken one does not hold the session up.
const DefaultReadyWait = 10 * time.Second

// Options configure a Manager.
type Options struct {
	// Servers are the entries to manage (merged and validated; see Merge
	// and Servers.Validate).
	Servers Servers
	// Policy gates project (.mcp.json) servers; the zero Policy runs none
	// of them until approved.
	Policy Policy
	// Registry receives the tools as servers connect, change and
	// disconnect, plus ListMcpResources/ReadMcpResource. May be nil.
	Registry *tool.Registry
	// Emit receives status events (event.Status with Meta mcp_server,
	// mcp_status, error). May be nil.
	Emit func(event.Event)
	// Logger receives SDK and refresh diagnostics. May be nil.
	Logger *slog.Logger
	// ClientName and ClientVersion are sent to servers in initialize.
	ClientName    string
	ClientVersion string
	// WorkDir is where stdio servers run (a relative cwd is resolved
	// against it): the project folder.
	WorkDir string
	// LookupEnv resolves ${VAR}; default os.LookupEnv.
	LookupEnv LookupFunc
	// Proxy reaches servers of type "sdk", which live in the program that
	// started tandem; nil: such servers fail to connect with a clear error.
	Proxy ProxyFunc
	// BaseEnv is the environment stdio servers start from, before their
	// configured env; nil: tandem's own without its credentials
	// (secrets.Default). A server that needs a key names it in its env.
	BaseEnv []string
	// Confine puts each stdio server inside the session's OS sandbox
	// (internal/sandbox); nil: the sandbox is off.
	Confine func(*exec.Cmd) error
	// GivenUpRetry is how often a server that failed maxRetries times in
	// a row is tried again (0: DefaultGivenUpRetry); Backoff, when set,
	// replaces the backoff before that (tests make both short).
	GivenUpRetry time.Duration
	Backoff      func(failures int) time.Duration
	// Elicit puts a server's question (elicitation) to the user; nil: the
	// capability is not offered, so servers do not ask.
	Elicit ElicitFunc
	// Roots are the session's folders, offered to servers as MCP roots;
	// nil: WorkDir alone.
	Roots []string
	// Tokens holds the OAuth sign-ins of http and sse servers (see
	// NewTokenStore); nil: such servers send only their static headers.
	Tokens *TokenStore
}

// Manager owns the connections to a session's MCP servers. Create one per
// runtime with NewManager; it holds no package state.
type Manager struct {
	opts   Options
	lookup LookupFunc

	mu      sync.Mutex
	servers map[string]*server
	ctx     context.Context
	cancel  context.CancelFunc
	started bool
	closed  bool
}

// NewManager prepares a manager; nothing starts until Start.
func NewManager(opts Options) *Manager {
	if opts.ClientName == "" {
		opts.ClientName = "tandem"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts, lookup: opts.LookupEnv, servers: map[string]*server{}}
	if m.lookup == nil {
		m.lookup = os.LookupEnv
	}
	for name, c := range opts.Servers {
		m.servers[name] = newServer(m, name, c)
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Start connects every enabled, allowed server in the background and
// returns at once. ctx only bounds Start itself; connections live until
// Close.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	if m.started || m.closed {
		m.mu.Unlock()
		return
	}
	m.started = true
	servers := m.sorted()
	m.mu.Unlock()
	if m.opts.Registry != nil && len(servers) > 0 {
		m.opts.Registry.Add(m.ResourceTools()...)
	}
	for _, s := range servers {
		switch {
		case s.config().Disabled:
			s.halt(StateDisabled, "disabled in config")
		case !m.opts.Policy.Allowed(s.name, s.cfg):
			s.mu.Lock()
			s.needsApproval = true
			s.mu.Unlock()
			s.halt(StateDisabled, fmt.Sprintf("project server from %s is not approved; run `tandem mcp enable %s` to approve it", s.cfg.File, s.name))
		default:
			s.start(m.ctx)
		}
	}
}

func (m *Manager) sorted() []*server {
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (m *Manager) get(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("mcp manager is closed")
	}
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("no mcp server named %q (configured: %v)", name, Servers(m.opts.Servers).Names())
	}
	return s, nil
}

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	servers := m.sorted()
	m.mu.Unlock()
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		out[i] = s.status()
	}
	return out
}

// WaitReady waits until every started server has connected or failed once,
// or until timeout or ctx ends. It reports whether all settled.
func (m *Manager) WaitReady(ctx context.Context, timeout time.Duration) bool {
	m.mu.Lock()
	servers := m.sorted()
	m.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, s := range servers {
		select {
		case <-s.settled:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// Enable starts a server while the session lives (clearing a config
// "disabled"). A project server still needs approval: see Approve.
func (m *Manager) Enable(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if !m.opts.Policy.Allowed(name, s.config()) {
		return fmt.Errorf("mcp server %s comes from %s and is not approved; approve it first", name, s.cfg.File)
	}
	s.mu.Lock()
	s.cfg.Disabled = false
	s.mu.Unlock()
	s.start(m.ctx)
	return nil
}

// Approve records the user's approval of a project server (in
// Policy.Approvals) and starts it.
func (m *Manager) Approve(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if NeedsApproval(s.config().Scope) {
		if m.opts.Policy.Approvals == nil {
			return fmt.Errorf("approve mcp server %s: no approvals store configured", name)
		}
		if err := m.opts.Policy.Approvals.Approve(m.opts.Policy.Project, name); err != nil {
			return fmt.Errorf("approve mcp server %s: %w", name, err)
		}
	}
	return m.Enable(name)
}

// Disable stops a server and withdraws its tools.
func (m *Manager) Disable(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	s.halt(StateDisabled, "disabled")
	return nil
}

// Reconnect restarts a server's connection (after a failure gave up).
func (m *Manager) Reconnect(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	s.halt(StateDisabled, "")
	return m.Enable(name)
}

// Close stops every server (stdio servers die with their process groups)
// and withdraws their tools. Safe to call more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := m.sorted()
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.halt(StateDisabled, "closed")
		}()
	}
	wg.Wait()
	m.cancel()
	if m.opts.Registry != nil {
		m.opts.Registry.Remove(ListResourcesToolName, ReadResourceToolName)
	}
	return nil
}

// Tools returns the MCP tools currently offered, sorted by name (for
// callers that keep no Registry).
func (m *Manager) Tools() []tool.Tool {
	var out []tool.Tool
	for _, s := range m.lockedServers() {
		s.mu.Lock()
		for _, t := range s.tools {
			out = append(out, t)
		}
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Instructions returns each connected server's instructions (for the
// system prompt), keyed by server name.
func (m *Manager) Instructions() map[string]string {
	out := map[string]string{}
	for _, st := range m.Status() {
		if st.State == StateConnected && st.Instructions != "" {
			out[st.Name] = st.Instructions
		}
	}
	return out
}

func (m *Manager) lockedServers() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sorted()
}

func (m *Manager) swapTools(old, new []*mcpTool) {
	if m.opts.Registry == nil {
		return
	}
	keep := map[string]bool{}
	for _, t := range new {
		keep[t.name] = true
	}
	var gone []string
	for _, t := range old {
		if !keep[t.name] {
			gone = append(gone, t.name)
		}
	}
	m.opts.Registry.Remove(gone...)
	add := make([]tool.Tool, len(new))
	for i, t := range new {
		add[i] = t
	}
	m.opts.Registry.Add(add...)
}

// emit announces a server's state as a status event.
func (m *Manager) emit(st ServerStatus, msg string) {
	if msg == "" {
		msg = statusMessage(st)
	}
	m.logf("%s", msg)
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if m.opts.Emit == nil || closed {
		return // after Close the session's stream is going away
	}
	meta := map[string]any{"mcp_server": st.Name, "mcp_status": string(st.State), "mcp_tools": st.Tools}
	if st.Error != "" {
		meta["error"] = st.Error
	}
	if st.NeedsApproval {
		meta["needs_approval"] = true
	}
	if st.AuthURL != "" {
		meta["auth_url"] = st.AuthURL
	}
	m.opts.Emit(event.Event{Type: event.Status, Message: msg, Meta: meta})
}

func statusMessage(st ServerStatus) string {
	switch st.State {
	case StateConnected:
		return fmt.Sprintf("mcp server %s connected (%d tools)", st.Name, st.Tools)
	case StateFailed:
		return fmt.Sprintf("mcp server %s failed: %s", st.Name, st.Error)
	case StateNeedsAuth:
		return st.Error
	case StateStarting:
		if st.Error != "" {
			return fmt.Sprintf("mcp server %s restarting: %s", st.Name, st.Error)
		}
		return fmt.Sprintf("mcp server %s starting", st.Name)
	default:
		if st.Error != "" {
			return fmt.Sprintf("mcp server %s disabled: %s", st.Name, st.Error)
		}
		return fmt.Sprintf("mcp server %s disabled", st.Name)
	}
}

func (m *Manager) logf(format string, args ...any) {
	m.opts.Logger.Debug(fmt.Sprintf(format, args...))
}

// baseEnv is what stdio servers inherit (see Options.BaseEnv).
func (m *Manager) baseEnv() []string {
	if m.opts.BaseEnv != nil {
		return m.opts.BaseEnv
	}
	return secrets.Default().ScrubEnv(os.Environ())
}

// Login signs in to the remote server name (see Login; open shows the
// authorization URL) and reconnects it with the new token.
func (m *Manager) Login(ctx context.Context, name string, open func(authURL string)) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if m.opts.Tokens == nil {
		return fmt.Errorf("mcp server %s: this session keeps no sign-ins", name)
	}
	if err := Login(ctx, name, s.config(), LoginOptions{Store: m.opts.Tokens, Open: open,
		ClientName: m.opts.ClientName, ClientVersion: m.opts.ClientVersion, LookupEnv: m.lookup}); err != nil {
		return err
	}
	return m.Reconnect(name)
}
