package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/tool"
)

// State of a server connection.
type State string

const (
	StateStarting  State = "starting"
	StateConnected State = "connected"
	StateFailed    State = "failed"
	StateDisabled  State = "disabled"
	// StateNeedsAuth: a remote server refused without a sign-in (or wants
	// more scopes); Error says how to sign in. It is not retried until
	// the user signs in (Login reconnects it).
	StateNeedsAuth State = "needs-auth"
)

// ServerStatus is what Status reports for one server.
type ServerStatus struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Scope string `json:"scope,omitempty"`
	State State  `json:"state"`
	Error string `json:"error,omitempty"`
	// NeedsApproval: a project (.mcp.json) server the user has not approved.
	NeedsApproval bool     `json:"needs_approval,omitempty"`
	Tools         int      `json:"tools"`
	ToolNames     []string `json:"tool_names,omitempty"`
	Resources     int      `json:"resources"`
	Prompts       int      `json:"prompts"`
	// ServerName and ServerVersion are what the server said about itself.
	ServerName    string `json:"server_name,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	Instructions  string `json:"instructions,omitempty"`
	// Stderr is the tail of a stdio server's standard error.
	Stderr string `json:"stderr,omitempty"`
	// AuthURL is the page to open while a sign-in started from a front
	// end waits for the browser.
	AuthURL string `json:"auth_url,omitempty"`
}

// Reconnection backoff: 1 s doubling to 30 s for maxRetries attempts in a
// row; then the server shows as failed and is tried again every
// DefaultGivenUpRetry (a remote server that was down comes back by
// itself; Enable or Reconnect try at once). A server is never left failed
// for the life of the process.
const (
	backoffBase = time.Second
	backoffMax  = 30 * time.Second
	maxRetries  = 6
	// DefaultGivenUpRetry is Options.GivenUpRetry's default.
	DefaultGivenUpRetry = 5 * time.Minute
	// stableAfter is how long a connection must live before its loss no
	// longer counts as a failed start.
	stableAfter = 10 * time.Second
)

// server is one configured server and its connection loop.
type server struct {
	name   string
	cfg    ServerConfig // as configured; expanded at each connect
	m      *Manager
	stderr *ring
	// progress routes notifications/progress to running calls.
	progress progressRoutes

	mu            sync.Mutex
	state         State
	err           string
	needsApproval bool
	sess          *session
	tools         []*mcpTool
	resources     []*sdk.Resource
	templates     []*sdk.ResourceTemplate
	prompts       []*sdk.Prompt
	info          *sdk.InitializeResult
	stop          context.CancelFunc // stops the loop; nil when not running
	loopDone      chan struct{}
	settled       chan struct{} // closed once the first attempt has an outcome
	settledOnce   sync.Once
	// authURL is the authorization URL of a sign-in in progress
	// (StartLogin); loginDone is closed when it ends.
	authURL   string
	loginDone chan struct{}
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	return &server{name: name, cfg: cfg, m: m, stderr: newRing(stderrKeep), state: StateDisabled,
		settled: make(chan struct{})}
}

// config returns the entry (Enable edits it while the session lives).
func (s *server) config() ServerConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// current returns the live session (nil if none) and the status.
func (s *server) current() (*session, ServerStatus) {
	st := s.status()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, st
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.name, Type: s.cfg.TransportType(), Scope: s.cfg.Scope, State: s.state,
		Error: s.err, NeedsApproval: s.needsApproval, Tools: len(s.tools),
		Resources: len(s.resources) + len(s.templates), Prompts: len(s.prompts), Stderr: s.stderr.Tail(20),
		AuthURL: s.authURL}
	for _, t := range s.tools {
		st.ToolNames = append(st.ToolNames, t.name)
	}
	if s.info != nil {
		st.Instructions = s.info.Instructions
		if s.info.ServerInfo != nil {
			st.ServerName, st.ServerVersion = s.info.ServerInfo.Name, s.info.ServerInfo.Version
		}
	}
	return st
}

// start launches the connection loop unless it runs already.
func (s *server) start(parent context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(parent)
	s.stop = cancel
	s.needsApproval = false
	s.loopDone = make(chan struct{})
	go s.loop(ctx, s.loopDone)
}

// halt stops the loop, closes the session and withdraws the tools.
func (s *server) halt(state State, reason string) {
	s.mu.Lock()
	stop, done := s.stop, s.loopDone
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	s.setState(state, reason)
	s.markSettled()
}

func (s *server) markSettled() { s.settledOnce.Do(func() { close(s.settled) }) }

// loop connects, waits for the connection to end, and reconnects with
// backoff until ctx ends.
func (s *server) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	failures := 0
	for {
		if st := s.status(); st.State != StateFailed {
			s.setState(StateStarting, st.Error)
		}
		sess, err := s.connect(ctx)
		if ctx.Err() != nil {
			if sess != nil {
				sess.close()
			}
			return
		}
		var na *NeedsAuthError
		if errors.As(err, &na) {
			// Retrying cannot help until the user signs in; Login restarts
			// the loop.
			s.setState(StateNeedsAuth, na.Error())
			s.markSettled()
			<-ctx.Done()
			return
		}
		if err != nil {
			failures++
			wait := s.m.retryAfter(failures)
			msg := err.Error()
			if failures > maxRetries {
				msg += fmt.Sprintf(" (failed %d times in a row; trying again every %s, or reconnect it now)", failures, wait)
			}
			s.setState(StateFailed, msg)
			s.markSettled()
			if !sleepCtx(ctx, wait) {
				return
			}
			continue
		}
		s.markSettled()
		connectedAt := time.Now()
		select {
		case <-ctx.Done():
			s.drop(sess)
			sess.close()
			return
		case <-sess.done:
			s.noteDropped(sess)
			// A server that dies soon after starting is crash-looping: back
			// off as for a failed start; one that ran a while restarts at once.
			if time.Since(connectedAt) < stableAfter {
				failures++
			} else {
				failures = 0
			}
			wait := backoffBase / 2
			if failures > 0 {
				wait = s.m.retryAfter(failures)
			}
			if failures > maxRetries {
				s.setState(StateFailed, fmt.Sprintf("keeps exiting right after it starts (trying again every %s, or reconnect it now); %s", wait, s.status().Error))
			}
			if !sleepCtx(ctx, wait) {
				return
			}
		}
	}
}

// retryAfter is the wait before attempt failures+1: the backoff, then
// the given-up cadence.
func (m *Manager) retryAfter(failures int) time.Duration {
	if failures > maxRetries {
		return cmp.Or(m.opts.GivenUpRetry, DefaultGivenUpRetry)
	}
	if m.opts.Backoff != nil {
		return m.opts.Backoff(failures)
	}
	d := backoffBase << (failures - 1)
	if d > backoffMax || d <= 0 {
		d = backoffMax
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// connect dials, lists the server's tools, resources and prompts, and
// publishes the tools.
func (s *server) connect(ctx context.Context) (*session, error) {
	cfg, err := s.config().Expand(s.name, s.m.lookup)
	if err != nil {
		return nil, err
	}
	var sess *session
	if cfg.TransportType() == TypeSDK {
		sess, err = dialTransport(ctx, s.newClient(), proxyTransport{server: s.name, send: s.m.opts.Proxy}, nil)
	} else {
		var oauth auth.OAuthHandler
		if t := cfg.TransportType(); t == TypeHTTP || t == TypeSSE {
			if oauth, err = oauthHandler(s.name, cfg, s.m.opts.Tokens, nil); err != nil {
				return nil, err
			}
		}
		sess, err = dial(ctx, s.newClient(), cfg, s.m.opts.WorkDir, s.m.baseEnv(), s.stderr, s.m.opts.Confine, oauth)
	}
	if err != nil {
		return nil, s.explain(err)
	}
	s.mu.Lock()
	s.sess = sess
	s.info = sess.cs.InitializeResult()
	s.mu.Unlock()
	if err := s.refreshTools(ctx, sess); err != nil {
		s.drop(sess)
		sess.close()
		return nil, s.explain(fmt.Errorf("list tools: %w", err))
	}
	s.refreshResources(ctx, sess)
	s.refreshPrompts(ctx, sess)
	s.setState(StateConnected, "")
	return sess, nil
}

// explain adds the server's last stderr lines to a connection error.
func (s *server) explain(err error) error {
	if tail := s.stderr.Tail(5); tail != "" {
		return fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return err
}

// newClient returns an SDK client whose notifications refresh this server.
// Handlers run on the connection's reader, so the refresh runs elsewhere.
func (s *server) newClient() *sdk.Client {
	o := s.m.opts
	impl := &sdk.Implementation{Name: o.ClientName, Version: o.ClientVersion}
	refresh := func(f func(context.Context, *session) error) func() {
		return func() {
			sess, _ := s.current()
			if sess == nil {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
			defer cancel()
			if err := f(ctx, sess); err != nil {
				s.m.logf("mcp server %s: refresh after list_changed: %v", s.name, err)
			}
		}
	}
	opts := &sdk.ClientOptions{
		Logger: o.Logger,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go refresh(s.refreshToolsAndAnnounce)()
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			go refresh(func(ctx context.Context, ss *session) error { s.refreshResources(ctx, ss); return nil })()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if p := req.Params; p != nil {
				s.progress.deliver(p.ProgressToken, p.Progress, p.Total, p.Message)
			}
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			go refresh(func(ctx context.Context, ss *session) error { s.refreshPrompts(ctx, ss); return nil })()
		},
	}
	caps := &sdk.ClientCapabilities{}
	offerRoots(caps)
	if o.Elicit != nil {
		opts.ElicitationHandler = s.elicitHandler(o.Elicit)
		caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
	}
	opts.Capabilities = caps
	c := sdk.NewClient(impl, opts)
	roots := o.Roots
	if roots == nil {
		roots = []string{o.WorkDir}
	}
	addRoots(c, roots)
	return c
}

// refreshTools lists the tools, applies enabled_tools/disabled_tools and
// swaps them into the registry.
func (s *server) refreshTools(ctx context.Context, sess *session) error {
	caps := sess.cs.InitializeResult().Capabilities
	var tools []*mcpTool
	if caps == nil || caps.Tools != nil {
		for t, err := range sess.cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			if s.offered(t.Name) {
				tools = append(tools, newMCPTool(s, t))
			}
		}
	}
	s.mu.Lock()
	if s.sess != sess {
		s.mu.Unlock()
		return nil // a newer connection owns the tools now
	}
	old := s.tools
	s.tools = tools
	s.mu.Unlock()
	s.m.swapTools(old, tools)
	return nil
}

func (s *server) refreshToolsAndAnnounce(ctx context.Context, sess *session) error {
	if err := s.refreshTools(ctx, sess); err != nil {
		return err
	}
	s.m.emit(s.status(), fmt.Sprintf("mcp server %s tools changed (%d tools)", s.name, len(s.status().ToolNames)))
	return nil
}

func (s *server) offered(name string) bool {
	cfg := s.config()
	if len(cfg.EnabledTools) > 0 {
		return slices.Contains(cfg.EnabledTools, name)
	}
	return !slices.Contains(cfg.DisabledTools, name)
}

// refreshResources caches the resource list; a server without resources,
// or one whose listing fails, simply has none.
func (s *server) refreshResources(ctx context.Context, sess *session) {
	caps := sess.cs.InitializeResult().Capabilities
	if caps == nil || caps.Resources == nil {
		return
	}
	var rs []*sdk.Resource
	for r, err := range sess.cs.Resources(ctx, nil) {
		if err != nil {
			s.m.logf("mcp server %s: list resources: %v", s.name, err)
			break
		}
		rs = append(rs, r)
	}
	var ts []*sdk.ResourceTemplate
	for t, err := range sess.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			break
		}
		ts = append(ts, t)
	}
	s.mu.Lock()
	if s.sess == sess {
		s.resources, s.templates = rs, ts
	}
	s.mu.Unlock()
}

func (s *server) refreshPrompts(ctx context.Context, sess *session) {
	caps := sess.cs.InitializeResult().Capabilities
	if caps == nil || caps.Prompts == nil {
		return
	}
	var ps []*sdk.Prompt
	for p, err := range sess.cs.Prompts(ctx, nil) {
		if err != nil {
			s.m.logf("mcp server %s: list prompts: %v", s.name, err)
			break
		}
		ps = append(ps, p)
	}
	s.mu.Lock()
	if s.sess == sess {
		s.prompts = ps
	}
	s.mu.Unlock()
}

// noteDropped handles a connection that ended without being asked to: the
// state says so (with stderr) and the loop reconnects. Tools stay offered
// while the server restarts, so a retried call finds them.
func (s *server) noteDropped(sess *session) {
	s.mu.Lock()
	if s.sess != sess {
		s.mu.Unlock()
		return
	}
	s.sess = nil
	s.mu.Unlock()
	sess.close()
	msg := "connection lost"
	if tail := s.stderr.Tail(3); tail != "" {
		msg += "; stderr: " + tail
	}
	s.setState(StateStarting, msg)
}

// drop forgets sess if it is current and withdraws its tools.
func (s *server) drop(sess *session) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	old := s.tools
	s.tools, s.resources, s.templates, s.prompts = nil, nil, nil, nil
	s.mu.Unlock()
	s.m.swapTools(old, nil)
}

// setState records a transition and announces it. Failed and disabled
// servers offer no tools.
func (s *server) setState(state State, errMsg string) {
	s.mu.Lock()
	changed := s.state != state || s.err != errMsg
	s.state, s.err = state, errMsg
	var old []*mcpTool
	if state == StateFailed || state == StateDisabled || state == StateNeedsAuth {
		old, s.tools = s.tools, nil
		s.resources, s.templates, s.prompts = nil, nil, nil
	}
	s.mu.Unlock()
	s.m.swapTools(old, nil)
	if changed {
		s.m.emit(s.status(), "")
	}
}

var _ tool.Tool = (*mcpTool)(nil)
