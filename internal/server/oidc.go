package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/tandem-agent/tandem/internal/accounts"
)

// OIDCOptions configure sign-in for the web UI with an OpenID Connect
// provider (config.OIDC, the serve.oidc section).
type OIDCOptions struct {
	Issuer, ClientID, ClientSecret string
	// RedirectURL is where the provider sends users back
	// (https://HOST/auth/oidc/callback); empty: built from the request.
	RedirectURL    string
	AllowedDomains []string
	AllowedGroups  []string
	Admins         []string // emails made admins at their first sign-in
}

// The sign-in paths (public: they carry no session data).
const (
	oidcLoginPath    = "/auth/oidc/login"
	oidcCallbackPath = "/auth/oidc/callback"
	oidcEnabledPath  = "/auth/oidc/enabled"
	oidcStateCookie  = "tandem_oidc_state"
	oidcFlowTTL      = 10 * time.Minute
)

// oidcSignIn is the provider as discovered at start, and the sign-ins in
// progress (state → nonce and PKCE verifier).
type oidcSignIn struct {
	opts     OIDCOptions
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier

	mu    sync.Mutex
	flows map[string]oidcFlow
}

type oidcFlow struct {
	nonce, verifier string
	expires         time.Time
}

// newOIDC discovers the provider (its /.well-known/openid-configuration).
func newOIDC(ctx context.Context, o OIDCOptions) (*oidcSignIn, error) {
	p, err := oidc.NewProvider(ctx, o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("serve.oidc: discover %s: %w (check the issuer URL and that this machine reaches it)", o.Issuer, err)
	}
	return &oidcSignIn{opts: o, provider: p, verifier: p.Verifier(&oidc.Config{ClientID: o.ClientID}), flows: map[string]oidcFlow{}}, nil
}

func (o *oidcSignIn) config(r *http.Request, tls bool) *oauth2.Config {
	redirect := o.opts.RedirectURL
	if redirect == "" {
		scheme := "http"
		if tls {
			scheme = "https"
		}
		redirect = scheme + "://" + r.Host + oidcCallbackPath
	}
	return &oauth2.Config{ClientID: o.opts.ClientID, ClientSecret: o.opts.ClientSecret, RedirectURL: redirect,
		Endpoint: o.provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// maxOIDCFlows bounds the sign-ins in progress. The login path is public,
// so without a bound a script calling it would grow them (and the walk
// pruning them at each call) for as long as a flow lives; past it a new
// sign-in is refused until some expire or finish.
const maxOIDCFlows = 10000

// begin starts a sign-in; ok is false when too many are in progress.
func (o *oidcSignIn) begin() (state string, f oidcFlow, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	for k, v := range o.flows {
		if now.After(v.expires) {
			delete(o.flows, k)
		}
	}
	if len(o.flows) >= maxOIDCFlows {
		return "", oidcFlow{}, false
	}
	state = randomID("")
	f = oidcFlow{nonce: randomID(""), verifier: oauth2.GenerateVerifier(), expires: now.Add(oidcFlowTTL)}
	o.flows[state] = f
	return state, f, true
}

// take ends a sign-in in progress: a state is good once.
func (o *oidcSignIn) take(state string) (oidcFlow, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f, ok := o.flows[state]
	delete(o.flows, state)
	return f, ok && time.Now().Before(f.expires)
}

func (s *Server) oidcRoutes(mux *http.ServeMux) {
	mux.Handle(oidcEnabledPath, methods{"GET": func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"enabled": s.oidc != nil})
	}})
	mux.Handle(oidcLoginPath, methods{"GET": s.oidcLogin})
	mux.Handle(oidcCallbackPath, methods{"GET": s.oidcCallback})
}

func (s *Server) oidcLogin(w http.ResponseWriter, r *http.Request) {
	if s.oidc == nil {
		writeError(w, errf(http.StatusNotFound, "oidc_off", "sign-in with OpenID Connect is not set up: set serve.oidc in the user config (docs/accounts.md)"))
		return
	}
	state, f, ok := s.oidc.begin()
	if !ok {
		writeError(w, errf(http.StatusServiceUnavailable, "oidc_busy", "too many sign-ins are in progress: try again in a few minutes"))
		return
	}
	// The state cookie ties the provider's answer to this browser (Lax:
	// it must ride on the provider's top-level redirect back).
	http.SetCookie(w, &http.Cookie{Name: oidcStateCookie, Value: state, Path: "/auth/oidc/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overTLS(r), MaxAge: int(oidcFlowTTL / time.Second)})
	http.Redirect(w, r, s.oidc.config(r, s.overTLS(r)).AuthCodeURL(state, oidc.Nonce(f.nonce), oauth2.S256ChallengeOption(f.verifier)), http.StatusFound)
}

// oidcClaims are the ID token's (or user info's) claims tandem reads.
type oidcClaims struct {
	Email         string   `json:"email"`
	EmailVerified *bool    `json:"email_verified"`
	Groups        []string `json:"groups"`
	Nonce         string   `json:"nonce"`
}

func (s *Server) oidcCallback(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, format string, args ...any) {
		s.log.Warn("oidc sign-in refused", "reason", fmt.Sprintf(format, args...))
		http.SetCookie(w, &http.Cookie{Name: oidcStateCookie, Path: "/auth/oidc/", MaxAge: -1})
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprintf(w, "Sign-in failed: "+format+"\n", args...)
	}
	if s.oidc == nil {
		fail(http.StatusNotFound, "OpenID Connect sign-in is not set up on this server")
		return
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		fail(http.StatusUnauthorized, "the provider said %s: %s", e, q.Get("error_description"))
		return
	}
	c, err := r.Cookie(oidcStateCookie)
	state := q.Get("state")
	if err != nil || state == "" || c.Value != state {
		fail(http.StatusBadRequest, "the sign-in did not start in this browser (or took too long): start again from /login")
		return
	}
	flow, ok := s.oidc.take(state)
	if !ok {
		fail(http.StatusBadRequest, "the sign-in expired or was used already: start again from /login")
		return
	}
	ctx := r.Context()
	cfg := s.oidc.config(r, s.overTLS(r))
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(flow.verifier))
	if err != nil {
		fail(http.StatusBadGateway, "the provider refused the code: %v", err)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := s.oidc.verifier.Verify(ctx, raw)
	if err != nil {
		fail(http.StatusUnauthorized, "the ID token is not valid: %v", err)
		return
	}
	var cl oidcClaims
	if err := idt.Claims(&cl); err != nil || cl.Nonce != flow.nonce {
		fail(http.StatusUnauthorized, "the ID token does not answer this sign-in (nonce)")
		return
	}
	if cl.Email == "" || cl.EmailVerified == nil {
		// Many providers put the email in user info only.
		if ui, err := s.oidc.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil && ui.Subject == idt.Subject {
			var more oidcClaims
			if ui.Claims(&more) == nil {
				cl.Email, cl.Groups = cmpOr(cl.Email, more.Email), append(cl.Groups, more.Groups...)
				v := ui.EmailVerified
				cl.EmailVerified = &v
			}
		}
	}
	u, err := s.oidcUser(ctx, idt.Issuer+" "+idt.Subject, cl)
	if err != nil {
		fail(http.StatusForbidden, "%v", err)
		return
	}
	id, _, err := s.accounts.StartSignIn(ctx, u)
	if err != nil {
		fail(http.StatusServiceUnavailable, "could not record the sign-in: %v", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: oidcStateCookie, Path: "/auth/oidc/", MaxAge: -1})
	// Lax, not Strict: the first page load after the provider's redirect
	// counts as cross-site, and a Strict cookie would not ride on it.
	// State changes are guarded by Origin and the CSRF token instead.
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overTLS(r), MaxAge: int(accounts.WebSessionTTL / time.Second)})
	if err := s.accounts.Audit(ctx, u.ID, "user.signin", u.ID, "oidc"); err != nil {
		s.log.Error("audit", "action", "user.signin", "err", err)
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oidcUser finds or creates the user of a provider's subject, if the
// configuration allows them (checked at every sign-in, so a narrowed
// allow-list takes effect for existing users too).
func (s *Server) oidcUser(ctx context.Context, subject string, cl oidcClaims) (accounts.User, error) {
	o := s.oidc.opts
	verified := cl.EmailVerified != nil && *cl.EmailVerified
	allowed := false
	if at := strings.LastIndexByte(cl.Email, '@'); at > 0 && verified {
		allowed = slices.ContainsFunc(o.AllowedDomains, func(d string) bool { return strings.EqualFold(d, cl.Email[at+1:]) })
	}
	if !allowed {
		allowed = slices.ContainsFunc(cl.Groups, func(g string) bool { return slices.Contains(o.AllowedGroups, g) })
	}
	if !allowed {
		return accounts.User{}, fmt.Errorf("%s is not allowed to sign in here (not a verified address of an allowed domain nor in an allowed group): ask the server's admin", cmpOr(cl.Email, "this account"))
	}
	u, err := s.accounts.BySubject(ctx, subject)
	if errors.Is(err, accounts.ErrNotFound) {
		admin := verified && slices.ContainsFunc(o.Admins, func(a string) bool { return strings.EqualFold(a, cl.Email) })
		u, err = s.accounts.AddSignedIn(ctx, cl.Email, subject, admin)
	}
	if err != nil {
		return accounts.User{}, err
	}
	if u.Disabled {
		return accounts.User{}, accounts.ErrDisabled
	}
	return u, nil
}
