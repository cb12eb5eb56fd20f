package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// oauthWorld is a loopback authorization server plus an MCP server that
// demands its tokens: PKCE (S256) checked, the resource parameter
// checked, dynamic registration, refresh, and a tool ("admin") that needs
// a scope the first sign-in does not ask for.
type oauthWorld struct {
	t   *testing.T
	URL string // the MCP endpoint

	mu          sync.Mutex
	base        string
	clients     map[string]bool
	codes       map[string]authCode
	tokens      map[string]tokenGrant
	refresh     map[string]tokenGrant
	n           int
	registered  int
	refreshed   int
	lastScopes  string
	badRequests []string
}

type authCode struct {
	challenge, redirect, resource, scope, client string
}

type tokenGrant struct {
	scopes  []string
	expires time.Time
}

func newOAuthWorld(t *testing.T) *oauthWorld {
	w := &oauthWorld{t: t, clients: map[string]bool{}, codes: map[string]authCode{},
		tokens: map[string]tokenGrant{}, refresh: map[string]tokenGrant{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	w.base = srv.URL
	w.URL = srv.URL + "/mcp"

	ms := sdk.NewServer(&sdk.Implementation{Name: "guarded", Version: "1"}, nil)
	sdk.AddTool(ms, &sdk.Tool{Name: "read", Description: "needs read"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "read ok"}}}, nil, nil
		})
	sdk.AddTool(ms, &sdk.Tool{Name: "admin", Description: "needs admin"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "admin ok"}}}, nil, nil
		})
	prmURL := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		g, ok := w.tokens[tok]
		if !ok || time.Now().After(g.expires) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: g.scopes, Expiration: g.expires}, nil
	}
	guarded := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{"read"}})(
		w.stepUp(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return ms }, nil), prmURL))
	mux.Handle("/mcp", guarded)
	ssePRM := srv.URL + "/.well-known/oauth-protected-resource/sse"
	mux.Handle("/sse", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: ssePRM, Scopes: []string{"read"}})(
		sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return ms }, nil)))
	mux.Handle("/.well-known/oauth-protected-resource/sse", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/sse", AuthorizationServers: []string{srv.URL}, ScopesSupported: []string{"read"},
	}))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: w.URL, AuthorizationServers: []string{srv.URL}, ScopesSupported: []string{"read"},
	}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(rw http.ResponseWriter, _ *http.Request) {
		writeJSONTest(rw, map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize",
			"token_endpoint": srv.URL + "/token", "registration_endpoint": srv.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "scopes_supported": []string{"read", "admin"},
			"token_endpoint_auth_methods_supported": []string{"none"}})
	})
	mux.HandleFunc("/register", w.register)
	mux.HandleFunc("/authorize", w.authorize)
	mux.HandleFunc("/token", w.token)
	return w
}

func writeJSONTest(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(v)
}

// stepUp refuses the admin tool with insufficient_scope unless the token
// carries "admin".
func (w *oauthWorld) stepUp(next http.Handler, prmURL string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" && msg.Params.Name == "admin" && !slices.Contains(auth.TokenInfoFromContext(r.Context()).Scopes, "admin") {
			rw.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="read admin", resource_metadata=%q`, prmURL))
			http.Error(rw, "insufficient scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(rw, r)
	})
}

func (w *oauthWorld) bad(format string, args ...any) {
	w.badRequests = append(w.badRequests, fmt.Sprintf(format, args...))
}

func (w *oauthWorld) register(rw http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	_ = json.NewDecoder(r.Body).Decode(&meta)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.registered++
	id := fmt.Sprintf("client-%d", w.registered)
	w.clients[id] = true
	rw.WriteHeader(http.StatusCreated)
	writeJSONTest(rw, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (w *oauthWorld) authorize(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.clients[q.Get("client_id")] {
		w.bad("authorize: unknown client %q", q.Get("client_id"))
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		w.bad("authorize: no S256 PKCE challenge")
	}
	if q.Get("resource") != w.URL && q.Get("resource") != w.base+"/sse" {
		w.bad("authorize: resource %q, want %q", q.Get("resource"), w.URL)
	}
	w.n++
	code := fmt.Sprintf("code-%d", w.n)
	w.codes[code] = authCode{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource"),
		scope: q.Get("scope"), client: q.Get("client_id")}
	w.lastScopes = q.Get("scope")
	to, _ := url.Parse(q.Get("redirect_uri"))
	v := to.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	to.RawQuery = v.Encode()
	http.Redirect(rw, r, to.String(), http.StatusFound)
}

func (w *oauthWorld) token(rw http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	w.mu.Lock()
	defer w.mu.Unlock()
	var scopes []string
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		c, ok := w.codes[r.Form.Get("code")]
		delete(w.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		switch {
		case !ok:
			w.bad("token: unknown code")
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			w.bad("token: PKCE verifier does not match the challenge")
		case r.Form.Get("resource") != c.resource:
			w.bad("token: resource %q", r.Form.Get("resource"))
		case r.Form.Get("redirect_uri") != c.redirect:
			w.bad("token: redirect_uri differs")
		}
		if !ok {
			http.Error(rw, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		scopes = strings.Fields(c.scope)
	case "refresh_token":
		g, ok := w.refresh[r.Form.Get("refresh_token")]
		if !ok {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusBadRequest)
			_, _ = rw.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		delete(w.refresh, r.Form.Get("refresh_token"))
		w.refreshed++
		scopes = g.scopes
	default:
		w.bad("token: grant %q", r.Form.Get("grant_type"))
		http.Error(rw, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	w.n++
	at, rt := fmt.Sprintf("at-%d", w.n), fmt.Sprintf("rt-%d", w.n)
	g := tokenGrant{scopes: scopes, expires: time.Now().Add(time.Hour)}
	w.tokens[at], w.refresh[rt] = g, g
	writeJSONTest(rw, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600,
		"refresh_token": rt, "scope": strings.Join(scopes, " ")})
}

func (w *oauthWorld) check() {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.badRequests {
		w.t.Error(b)
	}
}

// browser plays the user approving: it follows the authorization URL to the
// local callback.
func browser(t *testing.T) func(string) {
	return func(u string) {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
	}
}

func TestOAuthSignInDiscoveryRegistrationPKCE(t *testing.T) {
	w := newOAuthWorld(t)
	data := t.TempDir()
	store := NewTokenStore(data)
	h := startManager(t, Servers{"g": {Type: TypeHTTP, URL: w.URL}}, func(o *Options) { o.Tokens = store })
	st := h.waitState(t, "g", StateNeedsAuth, 10*time.Second)
	if !strings.Contains(st.Error, "tandem mcp login g") {
		t.Fatalf("needs-auth status does not name the fix: %q", st.Error)
	}
	if err := h.m.Login(context.Background(), "g", browser(t)); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "g", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__g__read", map[string]any{}); res.IsError || res.Content != "read ok" {
		t.Fatalf("read: %+v", res)
	}
	w.check()
	if w.registered != 1 {
		t.Fatalf("registered %d clients, want 1 (dynamic registration)", w.registered)
	}
	// User-only files, and the token never in what the user or model sees.
	fi, err := os.Stat(store.Dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("token folder mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	files, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	for _, e := range h.log.All() {
		if strings.Contains(e.Message, "at-") || strings.Contains(fmt.Sprint(e.Meta), "at-") {
			t.Fatalf("an event carries a token: %+v", e)
		}
	}
}

func TestOAuthSurvivesRestartAndRefreshesBeforeExpiry(t *testing.T) {
	w := newOAuthWorld(t)
	store := NewTokenStore(t.TempDir())
	if err := Login(context.Background(), "g", ServerConfig{Type: TypeHTTP, URL: w.URL}, LoginOptions{Store: store, Open: browser(t)}); err != nil {
		t.Fatal(err)
	}
	rec, err := store.load("g", w.URL)
	if err != nil || rec == nil || rec.Token == nil {
		t.Fatalf("no stored sign-in: %v", err)
	}
	first := rec.Token.AccessToken

	// A new process (a fresh manager on the same store) connects with the
	// stored token: no second sign-in, no second registration.
	h := startManager(t, Servers{"g": {Type: TypeHTTP, URL: w.URL}}, func(o *Options) { o.Tokens = store })
	h.waitState(t, "g", StateConnected, 10*time.Second)
	_ = h.m.Close()
	if w.registered != 1 || w.refreshed != 0 {
		t.Fatalf("registered %d, refreshed %d after a restart; want 1, 0", w.registered, w.refreshed)
	}

	// The token is a minute from expiry (inside refreshEarly): the next
	// start refreshes it first and saves the new one.
	if err := store.update("g", w.URL, func(r *oauthRecord) { r.Token.Expiry = time.Now().Add(time.Minute) }); err != nil {
		t.Fatal(err)
	}
	h = startManager(t, Servers{"g": {Type: TypeHTTP, URL: w.URL}}, func(o *Options) { o.Tokens = store })
	h.waitState(t, "g", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__g__read", map[string]any{}); res.IsError {
		t.Fatalf("read after refresh: %+v", res)
	}
	if w.refreshed != 1 {
		t.Fatalf("refreshed %d times, want 1", w.refreshed)
	}
	rec, _ = store.load("g", w.URL)
	if rec.Token.AccessToken == first || time.Until(rec.Token.Expiry) < 30*time.Minute {
		t.Fatalf("the refreshed token was not saved: %+v", rec.Token.Expiry)
	}
	w.check()
}

func TestOAuthRevokedRefreshShowsNeedsAuth(t *testing.T) {
	w := newOAuthWorld(t)
	store := NewTokenStore(t.TempDir())
	if err := Login(context.Background(), "g", ServerConfig{Type: TypeHTTP, URL: w.URL}, LoginOptions{Store: store, Open: browser(t)}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	clear(w.tokens)
	clear(w.refresh)
	w.mu.Unlock()
	h := startManager(t, Servers{"g": {Type: TypeHTTP, URL: w.URL}}, func(o *Options) { o.Tokens = store })
	st := h.waitState(t, "g", StateNeedsAuth, 10*time.Second)
	if strings.Contains(strings.ToLower(st.Error), "unauthorized") && !strings.Contains(st.Error, "tandem mcp login g") {
		t.Fatalf("a bare failure: %q", st.Error)
	}
}

func TestOAuthStepUpOnInsufficientScope(t *testing.T) {
	w := newOAuthWorld(t)
	store := NewTokenStore(t.TempDir())
	h := startManager(t, Servers{"g": {Type: TypeHTTP, URL: w.URL}}, func(o *Options) { o.Tokens = store })
	h.waitState(t, "g", StateNeedsAuth, 10*time.Second)
	if err := h.m.Login(context.Background(), "g", browser(t)); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "g", StateConnected, 10*time.Second)
	res := h.call(t, "mcp__g__admin", map[string]any{})
	if !res.IsError || res.Meta["needs_auth"] != true || !strings.Contains(res.Content, "admin") || !strings.Contains(res.Content, "tandem mcp login g") {
		t.Fatalf("admin without the scope: %+v", res)
	}
	if err := h.m.Login(context.Background(), "g", browser(t)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Fields(w.lastScopes), "admin") || !slices.Contains(strings.Fields(w.lastScopes), "read") {
		t.Fatalf("the second sign-in asked for %q, want read and admin", w.lastScopes)
	}
	h.waitState(t, "g", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__g__admin", map[string]any{}); res.IsError || res.Content != "admin ok" {
		t.Fatalf("admin after step-up: %+v", res)
	}
	if w.registered != 1 {
		t.Fatalf("registered %d clients: the second sign-in should reuse the registration", w.registered)
	}
	w.check()
}

func TestOAuthConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
	}{
		{`{"g":{"url":"https://x/mcp","oauth":{"grant":"magic"}}}`, "unknown grant"},
		{`{"g":{"url":"https://x/mcp","oauth":{"grant":"client_credentials","clientId":"a"}}}`, "clientSecret"},
		{`{"g":{"command":"x","oauth":{"clientId":"a"}}}`, "only http and sse"},
		{`{"g":{"url":"https://x/mcp","oauth":"yes"}}`, "must be an object"},
		{`{"g":{"url":"https://x/mcp","oauth":{"clientMetadataUrl":"http://x/c.json"}}}`, "https://"},
	} {
		_, errs := ParseServers(json.RawMessage(tc.raw), ScopeUser, "f")
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: errors %v, want one naming %q", tc.raw, errs, tc.want)
		}
	}
	s, errs := ParseServers(json.RawMessage(`{"g":{"url":"https://x/mcp","oauth":{"clientId":"abc","callbackPort":8123}}}`), ScopeUser, "f")
	if len(errs) != 0 || s["g"].OAuth == nil || s["g"].OAuth.ClientID != "abc" || s["g"].OAuth.CallbackPort != 8123 {
		t.Fatalf("oauth block not decoded: %+v %v", s["g"].OAuth, errs)
	}
}

func TestOAuthSSEServer(t *testing.T) {
	w := newOAuthWorld(t)
	store := NewTokenStore(t.TempDir())
	sse := w.base + "/sse"
	h := startManager(t, Servers{"s": {Type: TypeSSE, URL: sse}}, func(o *Options) { o.Tokens = store })
	st := h.waitState(t, "s", StateNeedsAuth, 10*time.Second)
	if !strings.Contains(st.Error, "tandem mcp login s") {
		t.Fatalf("needs-auth status: %q", st.Error)
	}
	if err := h.m.Login(context.Background(), "s", browser(t)); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "s", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__s__read", map[string]any{}); res.IsError || res.Content != "read ok" {
		t.Fatalf("read over sse: %+v", res)
	}
	w.check()
}
