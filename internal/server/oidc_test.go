package server_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// mkWorkspace makes the folder a test registers as its workspace.
func mkWorkspace(t *testing.T, dir string) string {
	ws := filepath.Join(dir, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return ws
}

// opUsers are the accounts of the test's OpenID provider.
type opUsers map[string]*storage.User

func (u opUsers) GetUserByID(id string) *storage.User { return u[id] }
func (u opUsers) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (opUsers) ExampleClientID() string { return "tandem" }

const opPassword = "verysecure"

func opUser(id, email string) *storage.User {
	return &storage.User{ID: id, Username: id, Password: opPassword, Email: email, EmailVerified: true,
		FirstName: id, LastName: "Test", PreferredLanguage: language.English}
}

// oidcEnv is a tandem server whose web UI signs in through an OpenID
// provider (zitadel's example OP) running in the test.
type oidcEnv struct {
	*env
	op *httptest.Server
}

func newOIDCEnv(t *testing.T, script scripted.Script) *oidcEnv {
	t.Helper()
	tandemLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tandemURL := "http://" + tandemLn.Addr().String()
	opLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + opLn.Addr().String()
	users := opUsers{
		"ann": opUser("ann", "ann@example.com"),
		"bob": opUser("bob", "bob@example.com"),
		"mal": opUser("mal", "mal@evil.test"),
	}
	st := storage.NewStorageWithClients(users, map[string]*storage.Client{
		"tandem": storage.WebClient("tandem", "tandem-secret", tandemURL+"/auth/oidc/callback"),
	})
	op := httptest.NewUnstartedServer(exampleop.SetupServer(issuer, st, nil, false))
	op.Listener.Close()
	op.Listener = opLn
	op.Start()
	t.Cleanup(op.Close)

	dir := t.TempDir()
	e := &env{t: t, dir: dir, cfg: servertest.Config{Script: script}, opts: server.Options{Token: testToken, DataDir: dir, KeepAlive: time.Hour,
		DefaultModel: servertest.Model,
		OIDC: &server.OIDCOptions{Issuer: issuer, ClientID: "tandem", ClientSecret: "tandem-secret",
			AllowedDomains: []string{"example.com"}, Admins: []string{"ann@example.com"}}}}
	e.start(tandemLn)
	t.Cleanup(e.stop)
	e.ws = mkWorkspace(t, dir)
	e.mustDo("POST", "/api/workspaces", map[string]string{"path": e.ws}, 201, nil)
	return &oidcEnv{env: e, op: op}
}

// cookieClient is an HTTP client with its own cookies, as a browser is.
func cookieClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

var loginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// signIn goes through the provider's sign-in as user and returns the
// final response (tandem's page, or its refusal).
func (o *oidcEnv) signIn(c *http.Client, user string) (*http.Response, string) {
	o.t.Helper()
	resp, err := c.Get(o.ts.URL + "/auth/oidc/login")
	if err != nil {
		o.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := loginID.FindSubmatch(page)
	if m == nil {
		o.t.Fatalf("no sign-in form at %s: %s", resp.Request.URL, page)
	}
	resp, err = c.PostForm(o.op.URL+"/login/username", url.Values{"id": {string(m[1])}, "username": {user}, "password": {opPassword}})
	if err != nil {
		o.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// api calls tandem as a signed-in page does: Origin set, and the CSRF
// token on a state change when csrf is given.
func (o *oidcEnv) api(c *http.Client, method, path, csrf string, body any) (int, []byte) {
	o.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, o.ts.URL+path, rd)
	req.Header.Set("Origin", o.ts.URL)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	resp, err := c.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// TestOIDCSignIn: a user of an allowed domain signs in through the
// provider and is created (an admin when listed); state changes need the
// page's CSRF token; signing out ends the sign-in for every copy of the
// cookie; a user of another domain is refused; a disabled user is
// refused at sign-in and signed out at once.
func TestOIDCSignIn(t *testing.T) {
	o := newOIDCEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	ann := cookieClient(t)
	resp, page := o.signIn(ann, "ann")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/" || !strings.Contains(page, "<html") {
		t.Fatalf("after sign-in: %d at %s: %.300s", resp.StatusCode, resp.Request.URL, page)
	}
	var me struct {
		User struct {
			ID, Name, Email string
			Admin           bool
		}
		CSRF string `json:"csrf_token"`
	}
	code, data := o.api(ann, "GET", "/api/me", "", nil)
	if code != 200 {
		t.Fatalf("me: %d %s", code, data)
	}
	json.Unmarshal(data, &me)
	if me.User.Name != "ann@example.com" || me.User.Email != "ann@example.com" || !me.User.Admin || me.CSRF == "" {
		t.Fatalf("me = %s", data)
	}
	for _, c := range ann.Jar.Cookies(mustURL(t, o.ts.URL)) {
		if c.Name == "tandem_token" && !strings.HasPrefix(c.Value, "tws_") {
			t.Errorf("the cookie holds %q, not a sign-in id", c.Value)
		}
	}
	// A state change without the page's CSRF token is refused.
	if code, data := o.api(ann, "POST", "/api/users", "", map[string]any{"name": "bob2"}); code != 403 || !strings.Contains(string(data), "bad_csrf") {
		t.Errorf("POST without CSRF token: %d %s", code, data)
	}
	if code, data := o.api(ann, "POST", "/api/users", "wrong", map[string]any{"name": "bob2"}); code != 403 {
		t.Errorf("POST with a wrong CSRF token: %d %s", code, data)
	}
	if code, data := o.api(ann, "POST", "/api/users", me.CSRF, map[string]any{"name": "bob2"}); code != 201 {
		t.Errorf("POST with the CSRF token: %d %s", code, data)
	}

	// bob is created too, not an admin, and sees no workspace.
	bob := cookieClient(t)
	if resp, page := o.signIn(bob, "bob"); resp.Request.URL.Path != "/" {
		t.Fatalf("bob's sign-in ended at %s: %.300s", resp.Request.URL, page)
	}
	code, data = o.api(bob, "GET", "/api/workspaces", "", nil)
	if code != 200 || strings.Contains(string(data), o.ws) {
		t.Errorf("bob's workspaces: %d %s", code, data)
	}
	if code, _ := o.api(bob, "GET", "/api/users", "", nil); code != 403 {
		t.Errorf("bob listed users: %d", code)
	}

	// mal's domain is not allowed: no user is made.
	mal := cookieClient(t)
	resp, page = o.signIn(mal, "mal")
	if resp.StatusCode != 403 || !strings.Contains(page, "not allowed") {
		t.Errorf("mal's sign-in: %d %s", resp.StatusCode, page)
	}
	code, data = o.api(ann, "GET", "/api/users", "", nil)
	if code != 200 || strings.Contains(string(data), "mal@") || !strings.Contains(string(data), "bob@example.com") {
		t.Errorf("users after the sign-ins: %d %s", code, data)
	}

	// Disabling bob signs him out at once and refuses his next sign-in.
	if code, data := o.api(ann, "PATCH", "/api/users/bob@example.com", me.CSRF, map[string]bool{"disabled": true}); code != 200 {
		t.Fatalf("disable bob: %d %s", code, data)
	}
	if code, _ := o.api(bob, "GET", "/api/me", "", nil); code != 401 {
		t.Errorf("a disabled user's sign-in still works: %d", code)
	}
	if resp, page := o.signIn(cookieClient(t), "bob"); resp.StatusCode != 403 || !strings.Contains(page, "disabled") {
		t.Errorf("a disabled user signed in again: %d %s", resp.StatusCode, page)
	}

	// Signing out ends the sign-in on the server: a copy of the cookie
	// taken before stops working too.
	stolen := cookieClient(t)
	stolen.Jar.SetCookies(mustURL(t, o.ts.URL), ann.Jar.Cookies(mustURL(t, o.ts.URL)))
	if code, data := o.api(ann, "POST", "/api/logout", me.CSRF, nil); code != 200 {
		t.Fatalf("logout: %d %s", code, data)
	}
	if code, _ := o.api(ann, "GET", "/api/me", "", nil); code != 401 {
		t.Errorf("after sign-out: %d", code)
	}
	if code, _ := o.api(stolen, "GET", "/api/me", "", nil); code != 401 {
		t.Errorf("a copy of the signed-out cookie: %d", code)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
