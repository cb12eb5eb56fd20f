package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginOptions configure an interactive sign-in.
type LoginOptions struct {
	// Store receives the token and the client registration.
	Store *TokenStore
	// Open shows the authorization URL to the user (opens a browser or
	// prints it). Required.
	Open func(authURL string)
	// HTTPClient reaches the server and its authorization server; nil:
	// http.DefaultClient.
	HTTPClient *http.Client
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string
	// LookupEnv resolves ${VAR} in the entry; default os.LookupEnv.
	LookupEnv LookupFunc
	// CallbackHost is the host of the local redirect; default 127.0.0.1.
	CallbackHost string
}

// LoginTimeout bounds how long a sign-in waits for the browser.
const LoginTimeout = 5 * time.Minute

// Login signs in to a remote server with the authorization code flow and
// PKCE: it discovers the server's authorization server (protected-resource
// metadata from WWW-Authenticate or the well-known URLs, then OAuth or
// OpenID metadata), registers tandem (client ID metadata document,
// pre-registered client, or dynamic registration), lets the user approve
// in the browser with the redirect to a listener on 127.0.0.1, and stores
// the token and registration in o.Store. The discovery, registration and
// exchange are the MCP go-sdk's (auth.AuthorizationCodeHandler).
func Login(ctx context.Context, name string, c ServerConfig, o LoginOptions) error {
	if o.Open == nil || o.Store == nil {
		return errors.New("mcp login: Open and Store are required")
	}
	c, err := c.Expand(name, o.LookupEnv)
	if err != nil {
		return err
	}
	switch c.TransportType() {
	case TypeHTTP, TypeSSE:
	default:
		return fmt.Errorf("mcp server %s is a %s server: only http and sse servers sign in with OAuth", name, c.TransportType())
	}
	if c.OAuth != nil && c.OAuth.Grant == GrantClientCredentials {
		return fmt.Errorf("mcp server %s signs in with client credentials from its config: there is nothing to log in to", name)
	}
	rec, err := o.Store.load(name, c.URL)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &oauthRecord{}
	}
	client := o.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	ln, redirect, err := listenCallback(c, rec, o.CallbackHost)
	if err != nil {
		return fmt.Errorf("mcp login %s: %w", name, err)
	}
	cb := serveCallback(ln)
	defer cb.Close()
	ctx, cancel := context.WithTimeout(ctx, LoginTimeout)
	defer cancel()

	var saveErr error
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: cb.fetcher(o.Open),
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "tandem", GrantTypes: []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none",
		}},
		RequestRefreshToken: true,
		Client:              client,
		ScopeFilter: func(discovered []string) []string {
			if c.OAuth != nil && len(c.OAuth.Scopes) > 0 {
				discovered = c.OAuth.Scopes
			}
			return unionScopes(discovered, rec.StepUp)
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			saveErr = o.Store.update(name, c.URL, func(r *oauthRecord) {
				r.ClientID, r.ClientSecret = oc.ClientID, oc.ClientSecret
				r.AuthURL, r.TokenURL, r.AuthStyle = oc.Endpoint.AuthURL, oc.Endpoint.TokenURL, oc.Endpoint.AuthStyle
				r.RedirectURL, r.Scopes, r.StepUp, r.Token = oc.RedirectURL, oc.Scopes, nil, tok
			})
			return oc.TokenSource(ctx, tok), nil
		},
	}
	switch {
	case c.OAuth != nil && c.OAuth.ClientID != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: c.OAuth.ClientID}
		if c.OAuth.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.OAuth.ClientSecret}
		}
	case rec.ClientID != "" && rec.RedirectURL == redirect:
		// The registration of an earlier sign-in, reused rather than
		// registering tandem again.
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: rec.ClientID}
		if rec.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: rec.ClientSecret}
		}
	}
	if c.OAuth != nil && c.OAuth.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.OAuth.ClientMetadataURL}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("mcp login %s: %w", name, err)
	}
	if err := probe(ctx, name, c, h, client, o); err != nil {
		return err
	}
	if saveErr != nil {
		return saveErr
	}
	if !o.Store.SignedIn(name, c.URL) {
		return fmt.Errorf("mcp server %s connected without asking to sign in: it needs no login", name)
	}
	return nil
}

// probe connects with the interactive handler (which runs the browser flow
// on the server's 401) and lists the tools, so a step-up the listing asks
// for is granted in the same sign-in.
func probe(ctx context.Context, name string, c ServerConfig, h auth.OAuthHandler, client *http.Client, o LoginOptions) error {
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc := &http.Client{Transport: headerRoundTripper{headers: c.Headers, next: base}}
	var t sdk.Transport
	if c.TransportType() == TypeSSE {
		hc.Transport = authRoundTripper{h: h, next: hc.Transport}
		t = &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: hc}
	} else {
		t = &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: hc, OAuthHandler: h, MaxRetries: 1}
	}
	cl := sdk.NewClient(&sdk.Implementation{Name: orDefault(o.ClientName, "tandem"), Version: orDefault(o.ClientVersion, "dev")}, nil)
	cs, err := cl.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("mcp login %s: %w", name, err)
	}
	defer cs.Close()
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Tools != nil {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return fmt.Errorf("mcp login %s: signed in, but listing the tools failed: %w", name, err)
		}
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// listenCallback opens the local redirect listener: the configured
// callbackPort, else the port of the stored registration (its redirect
// URI was registered), else any free port.
func listenCallback(c ServerConfig, rec *oauthRecord, host string) (net.Listener, string, error) {
	if host == "" {
		host = "127.0.0.1"
	}
	port := 0
	if c.OAuth != nil && c.OAuth.CallbackPort > 0 {
		port = c.OAuth.CallbackPort
	} else if u, err := url.Parse(rec.RedirectURL); err == nil && rec.RedirectURL != "" && u.Hostname() == host {
		port, _ = strconv.Atoi(u.Port())
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil && port != 0 && (c.OAuth == nil || c.OAuth.CallbackPort == 0) {
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0")) // a new registration follows
	}
	if err != nil {
		return nil, "", fmt.Errorf("listen for the sign-in callback: %w (set oauth.callbackPort to a free port)", err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	return ln, "http://" + net.JoinHostPort(host, strconv.Itoa(p)) + "/callback", nil
}

// callback is the local redirect listener of one sign-in; it serves every
// round of it (a step-up asks the browser again).
type callback struct {
	srv *http.Server
	got chan url.Values
}

func serveCallback(ln net.Listener) *callback {
	cb := &callback{got: make(chan url.Values, 1)}
	cb.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "<p>Sign-in failed: %s. You can close this tab.</p>", html.EscapeString(e+" "+q.Get("error_description")))
		} else {
			fmt.Fprint(w, "<p>Signed in to the MCP server. You can close this tab and return to tandem.</p>")
		}
		select {
		case cb.got <- q:
		default:
		}
	})}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb
}

func (cb *callback) Close() error { return cb.srv.Close() }

// fetcher shows the authorization URL and waits for the browser's
// redirect.
func (cb *callback) fetcher(open func(string)) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		open(args.URL)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no answer from the browser: %w", ctx.Err())
		case q := <-cb.got:
			if e := q.Get("error"); e != "" {
				return nil, fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		}
	}
}
