package scripted

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a scripted LLM API server. Create it with New, then either
// Start it on a loopback port or mount Handler in your own server.
type Server struct {
	script  Script
	cfg     config
	sideRE  *regexp.Regexp // nil: model-based side detection off
	invalid error          // script validation error, reported by Start and every request

	// attempts counts requests per step index; the last slot is shared by
	// the fallback (side requests and requests past the end).
	attempts []atomic.Int64

	mu       sync.Mutex
	requests []Request

	lifeMu sync.Mutex
	srv    *http.Server
	url    string
}

type config struct {
	addr             string
	requireKey       string
	sidePattern      string
	sideWithoutTools bool
	chunkSize        int
	messageID        string
	models           []string
	record           bool
	logf             func(format string, args ...any)
}

// Option configures a Server. Options override the script's own settings.
type Option func(*config)

// WithAddr sets the listen address for Start (default 127.0.0.1:0).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithRequireKey makes every API request present key (x-api-key or
// Authorization: Bearer) or get a 401.
func WithRequireKey(key string) Option { return func(c *config) { c.requireKey = key } }

// WithSideModelPattern sets the regular expression of models whose requests
// are side requests ("" turns model-based detection off).
func WithSideModelPattern(pattern string) Option {
	return func(c *config) { c.sidePattern = pattern }
}

// WithSideWithoutTools sets whether requests without tools are side
// requests (default true).
func WithSideWithoutTools(on bool) Option { return func(c *config) { c.sideWithoutTools = on } }

// WithChunkSize sets the approximate size of streamed pieces in bytes.
func WithChunkSize(n int) Option { return func(c *config) { c.chunkSize = n } }

// WithMessageID makes every Anthropic reply carry id, as some
// Anthropic-compatible servers do (reusing ids across conversations).
func WithMessageID(id string) Option { return func(c *config) { c.messageID = id } }

// WithModels sets the ids listed by GET /v1/models.
func WithModels(ids ...string) Option { return func(c *config) { c.models = ids } }

// WithoutRecording stops the server keeping requests (for long benchmarks).
func WithoutRecording() Option { return func(c *config) { c.record = false } }

// WithLogf logs one line per request.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// New builds a server for script. An invalid script is reported by Start
// and answered as a 500 naming the problem.
func New(script Script, opts ...Option) *Server {
	cfg := config{
		addr:             "127.0.0.1:0",
		requireKey:       script.RequireKey,
		sidePattern:      defaultSideModelPattern,
		sideWithoutTools: true,
		chunkSize:        script.ChunkSize,
		models:           script.Models,
		record:           true,
	}
	if script.SideModelPattern != nil {
		cfg.sidePattern = *script.SideModelPattern
	}
	if script.SideWithoutTools != nil {
		cfg.sideWithoutTools = *script.SideWithoutTools
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.chunkSize <= 0 {
		cfg.chunkSize = defaultChunkSize
	}
	if len(cfg.models) == 0 {
		cfg.models = defaultModels()
	}
	s := &Server{script: script, cfg: cfg, attempts: make([]atomic.Int64, len(script.Steps)+1+threadSteps(script))}
	s.invalid = script.Validate()
	if s.invalid == nil && cfg.sidePattern != "" {
		re, err := regexp.Compile(cfg.sidePattern)
		if err != nil {
			s.invalid = fmt.Errorf("side model pattern %q: %w", cfg.sidePattern, err)
		}
		s.sideRE = re
	}
	if s.invalid != nil {
		s.invalid = fmt.Errorf("invalid script: %w", s.invalid)
	}
	return s
}

// Handler serves the scripted APIs; mount it anywhere.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Start listens on the configured address (default a random 127.0.0.1
// port) and serves in the background. It returns the base URL, e.g.
// "http://127.0.0.1:40123" (clients add /v1/...).
func (s *Server) Start() (string, error) {
	if s.invalid != nil {
		return "", s.invalid
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.srv != nil {
		return "", errors.New("scripted server already started")
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return "", fmt.Errorf("scripted server listen on %s: %w", s.cfg.addr, err)
	}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 30 * time.Second}
	s.url = "http://" + ln.Addr().String()
	go func() { _ = s.srv.Serve(ln) }()
	return s.url, nil
}

// URL is the base URL after Start ("" before).
func (s *Server) URL() string {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	return s.url
}

// Close stops the server, cutting open streams.
func (s *Server) Close() {
	s.lifeMu.Lock()
	srv := s.srv
	s.lifeMu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Shutdown stops accepting requests and waits for open ones to finish.
func (s *Server) Shutdown(ctx context.Context) error {
	s.lifeMu.Lock()
	srv := s.srv
	s.lifeMu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Shutdown(ctx)
}

// Reset forgets recorded requests and fault attempt counts.
func (s *Server) Reset() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
	for i := range s.attempts {
		s.attempts[i].Store(0)
	}
}
