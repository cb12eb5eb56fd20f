package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthConfig is a remote server entry's "oauth" block (Claude Code's
// clientId and callbackPort, plus what the MCP authorization spec lets a
// client choose). Without it a server that answers 401 is still signed in
// to with dynamic client registration.
type OAuthConfig struct {
	// ClientID (and ClientSecret for a confidential client) of a client
	// registered with the authorization server beforehand.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// CallbackPort fixes the port of the local redirect
	// (http://127.0.0.1:PORT/callback) for servers that registered it.
	CallbackPort int `json:"callbackPort,omitempty"`
	// Scopes, when set, replace the scopes the server advertises.
	Scopes []string `json:"scopes,omitempty"`
	// ClientMetadataURL is an https client ID metadata document, used when
	// the authorization server supports them.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Grant is "authorization_code" (the default: a person signs in) or
	// "client_credentials" (a service signs in with ClientID and
	// ClientSecret; no browser).
	Grant string `json:"grant,omitempty"`
}

// Grants an oauth block may name.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

func (o *OAuthConfig) validate() (field, msg string) {
	if o == nil {
		return "", ""
	}
	switch o.Grant {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" || o.ClientSecret == "" {
			return "oauth.grant", "client_credentials needs oauth.clientId and oauth.clientSecret"
		}
	default:
		return "oauth.grant", fmt.Sprintf("unknown grant %q (want authorization_code or client_credentials)", o.Grant)
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		return "oauth.callbackPort", "must be a port number (1-65535)"
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		return "oauth.clientSecret", "a client secret needs oauth.clientId"
	}
	if o.ClientMetadataURL != "" && !strings.HasPrefix(o.ClientMetadataURL, "https://") {
		return "oauth.clientMetadataUrl", "must be an https:// URL"
	}
	return "", ""
}

// NeedsAuthError says a remote server wants its user to sign in (or to
// grant more scopes), and how.
type NeedsAuthError struct {
	Server string
	// Scopes are the scopes the server asked for, on a step-up.
	Scopes []string
	Cause  string
}

func (e *NeedsAuthError) Error() string {
	what := "needs sign-in"
	if len(e.Scopes) > 0 {
		what = "needs sign-in with more scopes (" + strings.Join(e.Scopes, " ") + ")"
	}
	if e.Cause != "" {
		what += " (" + e.Cause + ")"
	}
	return fmt.Sprintf("mcp server %s %s: run `tandem mcp login %s`, or sign in from /mcp in the terminal UI or the web UI's MCP panel", e.Server, what, e.Server)
}

// refreshEarly is how long before expiry a token is refreshed, so a call
// never goes out with a token about to lapse.
const refreshEarly = 2 * time.Minute

// storedAuth is the OAuth handler of a background connection: it sends the
// stored token (refreshing it before expiry and saving the new one) and,
// when the server still refuses, reports NeedsAuthError instead of opening
// a browser nobody may be looking at.
type storedAuth struct {
	name, url string
	store     *TokenStore
	client    *http.Client

	mu      sync.Mutex
	ts      oauth2.TokenSource
	refresh *refresher
}

var _ auth.OAuthHandler = (*storedAuth)(nil)

func newStoredAuth(name, url string, store *TokenStore, client *http.Client) (*storedAuth, error) {
	a := &storedAuth{name: name, url: url, store: store, client: client}
	rec, err := store.load(name, url)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Token != nil {
		a.ts, a.refresh = recordSource(rec, store, client)
	}
	return a, nil
}

func (a *storedAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ts == nil {
		return nil, nil
	}
	return a.ts, nil
}

func (a *storedAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden {
		if bearerParam(cs, "error") != "insufficient_scope" {
			return nil // a plain refusal: the retried request reports it
		}
		scopes := strings.Fields(bearerParam(cs, "scope"))
		_ = a.store.update(a.name, a.url, func(r *oauthRecord) { r.StepUp = unionScopes(r.StepUp, scopes) })
		return &NeedsAuthError{Server: a.name, Scopes: scopes}
	}
	// 401 with a token: it may have been revoked early; one refresh is
	// worth a try before asking the user.
	a.mu.Lock()
	rf := a.refresh
	a.mu.Unlock()
	if rf != nil && rf.forceOnce() == nil {
		return nil
	}
	cause := ""
	if rf != nil {
		cause = "the stored sign-in was refused and could not be refreshed"
	}
	return &NeedsAuthError{Server: a.name, Cause: cause}
}

func bearerParam(cs []oauthex.Challenge, key string) string {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "bearer") && c.Params[key] != "" {
			return c.Params[key]
		}
	}
	return ""
}

func unionScopes(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// recordSource is the token source of a stored sign-in: the stored token
// until refreshEarly before it expires, then a refresh with the stored
// refresh token; every new token is saved.
func recordSource(rec *oauthRecord, store *TokenStore, client *http.Client) (oauth2.TokenSource, *refresher) {
	cfg := &oauth2.Config{ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, Scopes: rec.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: rec.AuthURL, TokenURL: rec.TokenURL, AuthStyle: rec.AuthStyle}}
	ctx := context.Background()
	if client != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	}
	rf := &refresher{cfg: cfg, ctx: ctx, rt: rec.Token.RefreshToken,
		save: func(t *oauth2.Token) { _ = store.update(rec.Server, rec.URL, func(r *oauthRecord) { r.Token = t }) }}
	rf.cur = oauth2.ReuseTokenSourceWithExpiry(rec.Token, rf, refreshEarly)
	return tokenFunc(rf.token), rf
}

type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// refresher trades the refresh token for a new access token.
type refresher struct {
	cfg  *oauth2.Config
	ctx  context.Context
	save func(*oauth2.Token)

	mu  sync.Mutex
	rt  string
	cur oauth2.TokenSource // caches the token until refreshEarly before expiry
}

// Token refreshes (called by the caching source when the token is due).
func (r *refresher) Token() (*oauth2.Token, error) {
	r.mu.Lock()
	rt := r.rt
	r.mu.Unlock()
	if rt == "" {
		// invalid_grant: the SDK sends the request without a token, and the
		// server's 401 turns into needs-auth.
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the access token expired and no refresh token was issued"}
	}
	t, err := r.cfg.TokenSource(r.ctx, &oauth2.Token{RefreshToken: rt}).Token()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.rt = t.RefreshToken
	r.mu.Unlock()
	r.save(t)
	return t, nil
}

func (r *refresher) token() (*oauth2.Token, error) {
	r.mu.Lock()
	cur := r.cur
	r.mu.Unlock()
	return cur.Token()
}

// forceOnce refreshes now, replacing the cached token.
func (r *refresher) forceOnce() error {
	t, err := r.Token()
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.cur = oauth2.ReuseTokenSourceWithExpiry(t, r, refreshEarly)
	r.mu.Unlock()
	return nil
}

// oauthHandler is the handler of a background connection to a remote
// server: client credentials when configured, else the stored sign-in.
func oauthHandler(name string, c ServerConfig, store *TokenStore, client *http.Client) (auth.OAuthHandler, error) {
	if c.OAuth != nil && c.OAuth.Grant == GrantClientCredentials {
		return extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: c.OAuth.ClientID,
				ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: c.OAuth.ClientSecret}},
			HTTPClient: client,
		})
	}
	if store == nil {
		return nil, nil
	}
	return newStoredAuth(name, c.URL, store, client)
}

// authRoundTripper gives the SSE transport (which has no OAuth hook of its
// own) what the streamable one does: the handler's token on every request
// and, on 401/403, one Authorize and one retry.
type authRoundTripper struct {
	h    auth.OAuthHandler
	next http.RoundTripper
}

func (t authRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	send := func() (*http.Response, error) {
		req := r.Clone(r.Context())
		if r.Body != nil && r.GetBody != nil {
			b, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = b
		}
		ts, err := t.h.TokenSource(r.Context())
		if err != nil {
			return nil, err
		}
		if ts != nil {
			tok, err := ts.Token()
			var re *oauth2.RetrieveError
			switch {
			case err == nil:
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			case !errors.As(err, &re) || re.ErrorCode != "invalid_grant":
				return nil, err
			}
		}
		return t.next.RoundTrip(req)
	}
	resp, err := send()
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if r.Body != nil && r.GetBody == nil {
		return resp, nil // cannot replay the body
	}
	if err := t.h.Authorize(r.Context(), r, resp); err != nil {
		return nil, err
	}
	return send()
}
