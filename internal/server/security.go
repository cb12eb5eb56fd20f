package server

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
)

// cookieName holds the token for the browser UI.
const cookieName = "tandem_token"

// normalHost lower-cases a host name and strips a port, brackets and a
// trailing dot, so "LOCALHOST.:7337" and "localhost" compare equal.
func normalHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func (s *Server) hostAllowed(h string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hosts[normalHost(h)]
}

// originAllowed accepts the server's own origin (same scheme-less host and
// port as the Host header, which was checked already) and configured ones.
func (s *Server) originAllowed(r *http.Request, origin string) bool {
	if slices.Contains(s.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// secure wraps h with, outermost first: panic recovery, Host and Origin
// checks (DNS rebinding, cross-site requests), CORS for configured origins
// and authentication.
func (s *Server) secure(h http.Handler) http.Handler {
	return s.recoverer(s.guard(s.authenticate(h)))
}

func (s *Server) recoverer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			s.log.Error("handler panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			writeError(w, errf(http.StatusInternalServerError, "internal", "the server hit an internal error; see its log"))
		}()
		h.ServeHTTP(w, r)
	})
}

func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, errf(http.StatusForbidden, "bad_host",
				"host %q is not allowed: use localhost or 127.0.0.1, or start the server with --allow-host", normalHost(r.Host)))
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !s.originAllowed(r, origin) {
				writeError(w, errf(http.StatusForbidden, "bad_origin",
					"cross-site requests from %q are not allowed: start the server with --allow-origin to permit them", origin))
				return
			}
			if slices.Contains(s.opts.AllowedOrigins, origin) {
				w.Header().Set("Access-Control-Allow-Origin", origin)
				w.Header().Set("Access-Control-Allow-Credentials", "true")
				w.Header().Add("Vary", "Origin")
				if r.Method == http.MethodOptions {
					w.Header().Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
					w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// public paths need no token: the login page, its assets and the login call.
func public(r *http.Request) bool {
	p := r.URL.Path
	return p == "/login" || p == "/api/login" || strings.HasPrefix(p, "/assets/") || strings.HasPrefix(p, "/auth/oidc/")
}

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.overTLS(r), MaxAge: maxAge})
}

// overTLS says whether the browser reached the server over HTTPS: the
// server's own TLS, or (tandem serve speaks plain HTTP) the reverse proxy
// or load balancer in front of it saying so in X-Forwarded-Proto. It
// decides the cookies' Secure flag and the scheme of the sign-in's
// callback. A forged header changes only the forger's own response.
func (s *Server) overTLS(r *http.Request) bool {
	if s.opts.TLS || r.TLS != nil {
		return true
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}
