package netproxy

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"sync"
	"time"
)

// Limits a Proxy keeps unless Options say otherwise.
const (
	DefaultMaxConns      = 256
	DefaultHeaderTimeout = 30 * time.Second
	DefaultIdleTimeout   = 10 * time.Minute
	DefaultDialTimeout   = 30 * time.Second
	// maxHeaderBytes bounds a request's header block (net/http adds a
	// little slack of its own).
	maxHeaderBytes = 64 << 10
	// maxResponseHeaderBytes bounds an origin's answer headers.
	maxResponseHeaderBytes = 1 << 20
)

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options tune a Proxy. The zero value is ready to use.
type Options struct {
	// OnDenial is called once for each refused request, on the goroutine
	// serving it; it should return quickly.
	OnDenial func(Denial)
	// ConfigFile is the config file the refusal message tells the user to
	// edit (config.Paths owns where it is); empty: "tandem's config file".
	ConfigFile string
	// Dial connects to an address the proxy checked ("ip:port"), within
	// DialTimeout; nil: a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolver looks names up; nil: net.DefaultResolver.
	Resolver Resolver
	// MaxConns caps the client connections served at once (tunnels
	// included); further ones wait to be accepted. 0: DefaultMaxConns.
	MaxConns int
	// HeaderTimeout bounds the wait for a request's headers. 0:
	// DefaultHeaderTimeout.
	HeaderTimeout time.Duration
	// IdleTimeout closes a tunnel, or a kept-alive client connection,
	// after this long with no byte either way. 0: DefaultIdleTimeout.
	IdleTimeout time.Duration
	// DialTimeout bounds the default dialer's connect. 0:
	// DefaultDialTimeout.
	DialTimeout time.Duration
}

// Proxy is the sandbox's egress proxy. Create it with New, serve it on
// listeners with Serve, stop it with Close.
type Proxy struct {
	allow    *AllowList
	opts     Options
	server   *http.Server
	forward  *httputil.ReverseProxy
	tr       *http.Transport
	cancel   context.CancelFunc // ends every request's context at Close
	mu       sync.Mutex
	closed   bool
	tunnels  map[net.Conn]struct{}
	sem      chan struct{} // one token per client connection, across listeners
	handlers sync.WaitGroup
	// conns counts net/http's connection goroutines, from StateNew to
	// StateClosed or StateHijacked: Close waits for them too.
	conns sync.WaitGroup
}

// New returns a proxy letting through what allow lets through. allow is
// copied: the proxy's session allowances (Allow) do not change it; nil
// allows nothing.
func New(allow *AllowList, opts Options) *Proxy {
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = DefaultHeaderTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.Dial == nil {
		d := &net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}
		opts.Dial = d.DialContext
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Nothing is logged: net/http's messages could quote a request.
	quiet := log.New(io.Discard, "", 0)
	p := &Proxy{allow: allow.clone(), opts: opts, cancel: cancel, tunnels: map[net.Conn]struct{}{},
		sem: make(chan struct{}, opts.MaxConns)}
	p.tr = &http.Transport{
		// Never a proxy of its own: the environment's HTTP_PROXY could
		// be this very proxy, and the address check must see the origin.
		Proxy:                  nil,
		DialContext:            p.dialChecked,
		DisableCompression:     true, // pass the client's Accept-Encoding and the body as they are
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
	p.forward = &httputil.ReverseProxy{
		Rewrite:       rewrite,
		Transport:     p.tr,
		FlushInterval: -1, // event streams and long polls pass at once
		ErrorLog:      quiet,
		ErrorHandler:  p.forwardError,
	}
	p.server = &http.Server{
		Handler:           http.HandlerFunc(p.serveHTTP),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          quiet,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		// Called on Serve's goroutine before a connection's goroutine
		// starts, and Server.Close waits for Serve to stop accepting
		// before it returns, so no Add follows Close's Wait.
		ConnState: func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				p.conns.Add(1)
			case http.StateClosed, http.StateHijacked:
				p.conns.Done()
			}
		},
	}
	return p
}

// Serve accepts clients on ln (a unix socket normally) until Close,
// then returns nil; ln is closed by then. It may be called for several
// listeners.
func (p *Proxy) Serve(ln net.Listener) error {
	err := p.server.Serve(newLimitListener(ln, p.sem))
	if errors.Is(err, http.ErrServerClosed) {
		ln.Close() // Serve after Close leaves it open
		return nil
	}
	return err
}

// Allow adds pattern to the proxy's allow-list for as long as it runs
// ("allow api.example.com for this session").
func (p *Proxy) Allow(pattern string) error { return p.allow.Add(pattern) }

// Allowed lists the patterns the proxy lets through now, the session's
// allowances included.
func (p *Proxy) Allowed() []string { return p.allow.Patterns() }

// Close stops the proxy: its listeners, client connections and tunnels
// are closed, and it returns once every request it was serving has
// ended. Closing again does nothing more.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	tunnels := make([]net.Conn, 0, len(p.tunnels))
	for c := range p.tunnels {
		tunnels = append(tunnels, c)
	}
	p.mu.Unlock()
	p.cancel()
	err := p.server.Close()
	for _, c := range tunnels {
		c.Close()
	}
	p.handlers.Wait()
	p.conns.Wait()
	p.tr.CloseIdleConnections()
	return err
}

// enter registers a request being served; false once the proxy is
// closing, when it must not start.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.handlers.Add(1)
	return true
}

// track registers a tunnel's connections for Close, false once closing.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.tunnels, c)
	}
}
