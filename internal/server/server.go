// Package server is `tandem serve`: a JSON HTTP API over live sessions with
// server-sent events carrying tandem's event contract, and the embedded web
// UI. docs/api.md describes the API; docs/openapi.yaml is its OpenAPI form.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// SubtypeUserMessage marks the status event the server emits when a turn
// starts; Text holds the prompt, so every client shows it.
const SubtypeUserMessage = event.SubtypeUserMessage

// SubtypeRewound marks the status event the server emits after a rewind:
// clients reload the session's messages.
const SubtypeRewound = "rewound"

// SubtypeReloadRequired marks the status event sent (without an id) to an
// SSE client whose Last-Event-ID is older than the events still held: it
// must reload the session's messages and resume from their last_seq (or
// the session's stream_floor, when the ring has dropped part of the
// running turn).
const SubtypeReloadRequired = "reload_required"

// Catalog lists providers and models for the UI's pickers.
type Catalog interface {
	Providers() []listing.ProviderInfo
	Models() []listing.ModelInfo
}

// Options configure a Server.
type Options struct {
	Manager *session.Manager
	// FlagRules are --allowedTools / --disallowedTools rules for every
	// session the server opens (tests use them to make tools ask).
	FlagRules  []permission.Rule
	Workspaces Workspaces // default: the Manager's store
	// Accounts are the users, their tokens and roles (default: over the
	// Manager's store). Until a user exists the server token is the
	// admin's.
	Accounts *accounts.Service
	// OIDC turns on sign-in for the web UI with an OpenID Connect
	// provider, discovered when the server is made.
	OIDC *OIDCOptions
	// Limits are each user's (not the server token's) daily budget and
	// concurrent turns.
	Limits  Limits
	Token   string // required; see LoadOrCreateToken
	DataDir string
	// AllowedHosts are extra host names accepted in the Host header (the
	// listen address, localhost, 127.0.0.1 and ::1 always are).
	AllowedHosts []string
	// AllowedOrigins are extra origins ("https://example.com") allowed to
	// call the API from a browser; they also get CORS headers.
	AllowedOrigins []string
	Catalog        Catalog
	// Checkpoints lists and rewinds sessions' checkpoints and deletes their
	// snapshots with them; nil: the endpoints answer 501.
	Checkpoints *checkpoint.Service
	// Extensions lists skills, commands and agents; nil: 501.
	Extensions Extensions
	// KeepAlive is the SSE heartbeat period (default 15s).
	KeepAlive time.Duration
	Logger    *slog.Logger
	// Defaults for sessions created without these fields (`tandem serve`
	// flags). Empty: the session folder's configuration decides.
	DefaultModel, DefaultRuntime, DefaultMode string
	// Trust reports and changes which folders are trusted (GET/POST/DELETE
	// /api/trust); nil: those endpoints answer 501.
	Trust Trust
	// RingSize is how many recent events each session keeps for
	// Last-Event-ID resumption (default 10000); RingBytes bounds their
	// encoded size (default 8 MiB). Consecutive tool_output events of one
	// call are coalesced into one held event.
	RingSize  int
	RingBytes int
	// ClientBuffer is how many events (ClientBufferBytes: how many bytes,
	// default 8 MiB) an SSE client may lag behind before it is dropped
	// (default 1024).
	ClientBuffer      int
	ClientBufferBytes int
	// WriteTimeout ends an SSE stream whose client has not taken a write
	// for this long (default 30s).
	WriteTimeout time.Duration
	// IdleTimeout closes a session's live state (its MCP servers, shell
	// jobs) after it has had no turn and no SSE client for this long; it
	// reopens on the next request. 0 means 30 minutes, negative never.
	IdleTimeout time.Duration
	// TLS marks the cookies Secure whatever the request says (overTLS:
	// a request through an HTTPS proxy's X-Forwarded-Proto gets them so
	// without it).
	TLS bool
	// OnEventWritten, when set, is called for each live event once it is
	// flushed to an SSE client (not for the backlog a resuming client is
	// sent first); benchmarks measure latency with it.
	OnEventWritten func(sessionID string, seq int64, created time.Time)
	// EventLog, when set, stores every event before any client sees it
	// and serves other replicas' events (eventlog.go); nil: one process,
	// the in-memory rings only.
	EventLog EventLog
	// Replicas, when set, keeps this replica's heartbeat for GET
	// /api/replicas and /readyz (replicas.go); ReplicaID names it
	// (default: NewReplicaID).
	Replicas  ReplicaRegistry
	ReplicaID string
	// Turns, when set, runs turns as durable workflows any replica may
	// take (durable.go): the embedded default on its own SQLite file, a
	// shared PostgreSQL's replicas on it. nil: turns run in the process
	// that got the prompt. ReplicaID defaults to its replica.
	Turns *turnqueue.Engine
	// DeadAfter is how long a replica's heartbeat may be silent before
	// its turns move to another replica (default 8 s).
	DeadAfter time.Duration
	// DrainTimeout is how long Shutdown lets running durable turns finish
	// before interrupting them and handing them over to the other
	// replicas (default DefaultDrainTimeout; `tandem serve
	// --drain-timeout`, which adds it to the 10 s tandem allows itself
	// after SIGTERM).
	DrainTimeout time.Duration

	// Middleware, when set, wraps the whole handler (the application's
	// telemetry traces each request with it).
	Middleware func(http.Handler) http.Handler
}

// Server serves the API and the web UI.
type Server struct {
	opts       Options
	mgr        *session.Manager
	workspaces Workspaces
	log        *slog.Logger
	handler    http.Handler
	answered   *recentSet
	accounts   *accounts.Service
	// callers are the requests in flight by who made them (auth.go).
	callers callers
	oidc    *oidcSignIn // nil: no OpenID Connect sign-in
	hosts   map[string]bool

	base context.Context // parent of every turn; cancelled on shutdown
	stop context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*sessState
	addr     string // listen address, once known
	streams  sync.WaitGroup
	logSinks map[*hub]*logSink // eventlog.go
	replica  replicaState      // replicas.go
	// handOver: a draining replica leaves its interrupted durable turns
	// pending for another replica (durable.go).
	handOver atomic.Bool
	// ended: the durable turns that completed here during a drain
	// (durable.go).
	ended []string
	// draining: Shutdown began (/readyz answers 503 from then on).
	draining atomic.Bool
}

// New checks opts and builds a server.
func New(opts Options) (*Server, error) {
	if opts.Manager == nil {
		return nil, errors.New("server: Options.Manager is required")
	}
	if err := ValidateToken(opts.Token); err != nil {
		return nil, fmt.Errorf("server: %w: use LoadOrCreateToken or --token with a longer value", err)
	}
	if opts.Workspaces == nil {
		opts.Workspaces = opts.Manager.Store()
	}
	if opts.Accounts == nil {
		opts.Accounts = accounts.New(opts.Manager.Store())
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.RingBytes <= 0 {
		opts.RingBytes = 8 << 20
	}
	if opts.ClientBufferBytes <= 0 {
		opts.ClientBufferBytes = 8 << 20
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 30 * time.Second
	}
	if opts.RingSize <= 0 {
		opts.RingSize = 10000
	}
	if opts.ClientBuffer <= 0 {
		opts.ClientBuffer = 1024
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, mgr: opts.Manager, workspaces: opts.Workspaces, log: opts.Logger,
		answered: newRecentSet(4096), sessions: map[string]*sessState{}, accounts: opts.Accounts}
	s.base, s.stop = context.WithCancel(context.Background())
	if opts.OIDC != nil {
		o, err := newOIDC(s.base, *opts.OIDC)
		if err != nil {
			return nil, err
		}
		s.oidc = o
	}
	s.hosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	for _, h := range opts.AllowedHosts {
		s.hosts[normalHost(h)] = true
	}
	s.handler = s.routes()
	if opts.Middleware != nil {
		s.handler = opts.Middleware(s.handler)
	}
	if opts.IdleTimeout == 0 {
		s.opts.IdleTimeout = 30 * time.Minute
	}
	if s.opts.IdleTimeout > 0 {
		go s.sweepIdle(s.opts.IdleTimeout)
	}
	if opts.ReplicaID == "" && opts.Turns != nil {
		opts.ReplicaID = opts.Turns.Replica()
	}
	if opts.ReplicaID == "" {
		opts.ReplicaID = NewReplicaID()
	}
	s.replica = replicaState{id: opts.ReplicaID, started: time.Now()}
	s.log = s.log.With("replica", s.replica.id)
	go s.follow()
	go s.heartbeats()
	go s.watchCallers()
	if err := s.startTurns(); err != nil {
		s.stop()
		return nil, err
	}
	go s.sweepTurns()
	return s, nil
}

// Handler is the whole server as an http.Handler (tests use httptest).
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe serves on addr until ctx is cancelled, then shuts down
// cleanly (turns interrupted and stored, streams closed) and returns nil.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on an open listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.allowListenHost(ln.Addr().String())
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, ConnContext: ConnContext,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Shutdown(context.Background())
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// The drain, then the rest of the shutdown.
	sctx, cancel := context.WithTimeout(context.Background(), s.drainTimeout()+30*time.Second)
	defer cancel()
	serr := s.Shutdown(sctx)
	if err := hs.Shutdown(sctx); err != nil && serr == nil {
		serr = fmt.Errorf("close HTTP server: %w", err)
	}
	<-errc
	return serr
}

// Addr is the address the server listens on, once Serve has started.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

func (s *Server) allowListenHost(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addr = addr
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" && h != "0.0.0.0" && h != "::" {
		s.hosts[normalHost(h)] = true
	}
}

// Shutdown interrupts every running turn, waits until each has stored what
// it produced, ends every event stream and closes the live sessions. New
// messages are refused from the moment it is called.
//
// With durable turns (Options.Turns) it first drains: this replica stops
// taking turns and lets the running ones finish for up to DrainTimeout;
// those still running are then interrupted here (their tools stopped,
// what they produced stored) and, when another replica is alive, left
// pending for it to resume once this replica's heartbeat is gone.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	s.drainTurns(ctx)
	s.stop()
	s.mu.Lock()
	states := make([]*sessState, 0, len(s.sessions))
	for _, st := range s.sessions {
		states = append(states, st)
	}
	s.mu.Unlock()
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for _, st := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.stop(ctx, false); err != nil {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	s.releaseTurns(ctx)
	done := make(chan struct{})
	go func() { s.streams.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("wait for event streams to close: %w", ctx.Err()))
	}
	return errors.Join(errs...)
}

// recentSet remembers the last n permission request ids that were
// answered, so a second reply gets 409 rather than 404.
type recentSet struct {
	mu    sync.Mutex
	max   int
	order []string
	set   map[string]bool
}

func newRecentSet(n int) *recentSet { return &recentSet{max: n, set: map[string]bool{}} }

func (r *recentSet) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id == "" || r.set[id] {
		return
	}
	r.set[id] = true
	r.order = append(r.order, id)
	if len(r.order) > r.max {
		delete(r.set, r.order[0])
		r.order = r.order[1:]
	}
}

func (r *recentSet) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set[id]
}
