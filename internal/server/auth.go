package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
)

// caller is who a request comes from, resolved once by authenticate.
type caller struct {
	user accounts.User // ID "" for the single server token
	// tokenHash is the hash of the personal token the request carried
	// ("" for the server token or a signed-in browser), so a rotation
	// ends what it authorised.
	tokenHash string
	// webSession is the hash naming the browser sign-in the request
	// carried ("" for none), csrf that sign-in's CSRF token.
	webSession, csrf string
	how              string // "bearer" or "cookie"
}

// admin reports whether the caller manages users and workspaces: an
// admin user, or the server token while no users exist.
func (c *caller) admin() bool { return c.user.Admin }

// actor names the caller in the audit log.
func (c *caller) actor() string {
	if c.user.ID == "" {
		return "server-token"
	}
	return c.user.ID
}

type callerKey struct{}

// callerOf is the caller authenticate put in r's context.
func callerOf(r *http.Request) *caller {
	c, _ := r.Context().Value(callerKey{}).(*caller)
	if c == nil {
		// Only public routes run without one; they decide nothing by it.
		return &caller{}
	}
	return c
}

// serverTokenUser is the single server token's identity while no user
// exists (a laptop needs no set-up): the admin.
var serverTokenUser = accounts.User{Name: "admin", Admin: true}

// errServerTokenRetired answers the server token once users exist.
var errServerTokenRetired = errors.New("the server token stops working once users exist: use your personal token (tandem users token rotate NAME prints a new one)")

// identify resolves a token to a caller.
func (s *Server) identify(ctx context.Context, tok string) (*caller, error) {
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
		has, err := s.accounts.HasUsers(ctx)
		if err != nil {
			return nil, err
		}
		if has {
			return nil, errServerTokenRetired
		}
		return &caller{user: serverTokenUser}, nil
	}
	if accounts.IsPersonalToken(tok) {
		u, err := s.accounts.Authenticate(ctx, tok)
		if err != nil {
			return nil, err
		}
		return &caller{user: u, tokenHash: accounts.HashToken(tok)}, nil
	}
	if accounts.IsSignInCookie(tok) {
		si, err := s.accounts.SignedIn(ctx, tok)
		if err != nil {
			return nil, err
		}
		return &caller{user: si.User, webSession: si.Hash, csrf: si.CSRF}, nil
	}
	return nil, accounts.ErrBadToken
}

// authenticate resolves the caller of every non-public request, refuses
// one without a valid credential and keeps long requests (event streams)
// in the registry that ends them when their user is disabled or their
// token rotated.
func (s *Server) authenticate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public(r) {
			h.ServeHTTP(w, r)
			return
		}
		tok, how := credential(r)
		var c *caller
		var err error
		if tok != "" {
			c, err = s.identify(r.Context(), tok)
		}
		if c == nil && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		switch {
		case tok == "":
			writeError(w, errf(http.StatusUnauthorized, "unauthorized",
				"send your token as Authorization: Bearer <token> (the server's own is in the data folder's server-token file while no users exist)"))
			return
		case err != nil && !errors.Is(err, accounts.ErrBadToken) && !errors.Is(err, accounts.ErrDisabled) && !errors.Is(err, errServerTokenRetired):
			s.log.Error("authenticate", "err", err)
			writeError(w, errf(http.StatusServiceUnavailable, "accounts_unavailable", "could not check the token: the server's database failed; see its log"))
			return
		case err != nil:
			writeError(w, errf(http.StatusUnauthorized, "unauthorized", "%v", err))
			return
		}
		c.how = how
		if how == "cookie" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			// A cookie rides along on any request the browser makes, so a
			// state change must prove it comes from our own page: an
			// Origin header (checked by guard) and, for a signed-in
			// session, its CSRF token.
			if r.Header.Get("Origin") == "" {
				writeError(w, errf(http.StatusForbidden, "bad_origin", "requests authenticated by cookie must carry an Origin header"))
				return
			}
			if c.webSession != "" && !(accounts.SignIn{CSRF: c.csrf}).CSRFOK(r.Header.Get(csrfHeader)) {
				writeError(w, errf(http.StatusForbidden, "bad_csrf", "the request lacks the page's CSRF token (%s): reload the page", csrfHeader))
				return
			}
		}
		ctx, cancel := context.WithCancel(context.WithValue(r.Context(), callerKey{}, c))
		defer cancel()
		done := s.callers.add(c, cancel)
		defer done()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// credential is the token a request offers and how: a bearer token, else
// the cookie.
func credential(r *http.Request) (tok, how string) {
	if a := r.Header.Get("Authorization"); a != "" {
		t, _ := strings.CutPrefix(a, "Bearer ")
		return strings.TrimSpace(t), "bearer"
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return c.Value, "cookie"
	}
	return "", ""
}

// callers are the requests in flight with who made them, so a change of
// a user ends what their old credentials authorised: at once for a change
// made through this server, within recheckEvery for one made elsewhere
// (`tandem users` on the same database, another replica).
type callers struct {
	mu   sync.Mutex
	next int
	live map[int]liveCaller
}

type liveCaller struct {
	c      *caller
	cancel context.CancelFunc
}

// recheckEvery is how often open requests' credentials are checked again
// against the database.
const recheckEvery = 2 * time.Second

func (cs *callers) add(c *caller, cancel context.CancelFunc) (done func()) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.live == nil {
		cs.live = map[int]liveCaller{}
	}
	cs.next++
	id := cs.next
	cs.live[id] = liveCaller{c, cancel}
	return func() {
		cs.mu.Lock()
		delete(cs.live, id)
		cs.mu.Unlock()
	}
}

func (cs *callers) snapshot() []liveCaller {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]liveCaller, 0, len(cs.live))
	for _, l := range cs.live {
		out = append(out, l)
	}
	return out
}

// recheck ends every request in flight whose caller may no longer go on.
func (s *Server) recheck(ctx context.Context) {
	var hasUsers *bool
	for _, l := range s.callers.snapshot() {
		ok := true
		switch {
		case l.c.user.ID == "":
			if hasUsers == nil {
				h, err := s.accounts.HasUsers(ctx)
				if err != nil {
					continue
				}
				hasUsers = &h
			}
			ok = !*hasUsers
		case l.c.webSession != "":
			ok = s.accounts.SignInAlive(ctx, l.c.webSession)
		default:
			ok = s.accounts.Still(ctx, l.c.user.ID, l.c.tokenHash)
		}
		if !ok {
			l.cancel()
		}
	}
}

// watchCallers rechecks open requests until the server stops.
func (s *Server) watchCallers() {
	t := time.NewTicker(recheckEvery)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
			s.recheck(s.base)
		}
	}
}
