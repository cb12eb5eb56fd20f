package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

func textScript() scripted.Script {
	return scripted.Script{Steps: []scripted.Step{scripted.TextStep("Hello **there**.")}}
}

func TestAuth(t *testing.T) {
	e := newEnv(t, textScript())
	get := func(mod func(*http.Request)) (int, string, http.Header) {
		req, _ := http.NewRequest("GET", e.ts.URL+"/api/sessions", nil)
		mod(req)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String(), resp.Header
	}
	cases := []struct {
		name string
		mod  func(*http.Request)
		want int
	}{
		{"no token", func(*http.Request) {}, 401},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong-token-wrong-token") }, 401},
		{"not bearer", func(r *http.Request) { r.Header.Set("Authorization", "Basic "+testToken) }, 401},
		{"bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken) }, 200},
		{"cookie", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "tandem_token", Value: testToken}) }, 200},
		{"wrong cookie", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "tandem_token", Value: "nope"}) }, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := get(c.mod)
			if code != c.want {
				t.Fatalf("status %d, want %d: %s", code, c.want, body)
			}
			if c.want == 401 && errCode(t, []byte(body)) != "unauthorized" {
				t.Fatalf("body %s", body)
			}
		})
	}

	// Login sets an HttpOnly, SameSite=Strict cookie; a wrong token gets 401.
	resp, err := http.Post(e.ts.URL+"/api/login", "application/json", strings.NewReader(`{"token":"nope"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("bad login: %d", resp.StatusCode)
	}
	resp, err = http.Post(e.ts.URL+"/api/login", "application/json", strings.NewReader(`{"token":"`+testToken+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ck := resp.Cookies()
	if resp.StatusCode != 200 || len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || ck[0].Value != testToken {
		t.Fatalf("login: %d %+v", resp.StatusCode, ck)
	}

	// A cookie-authenticated state change needs our Origin.
	post := func(origin string) int {
		req, _ := http.NewRequest("POST", e.ts.URL+"/api/workspaces", strings.NewReader(`{"path":"`+e.ws+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: "tandem_token", Value: testToken})
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(""); c != 403 {
		t.Fatalf("cookie POST without Origin: %d", c)
	}
	if c := post(e.ts.URL); c != 201 {
		t.Fatalf("cookie POST with own Origin: %d", c)
	}

	// The UI page redirects to the login page without a token; the login
	// page and assets are public.
	code, _, h := get(func(r *http.Request) { r.URL.Path = "/" })
	if code != 303 || h.Get("Location") != "/login" {
		t.Fatalf("GET / without token: %d %s", code, h.Get("Location"))
	}
	for _, p := range []string{"/login", "/assets/app.js"} {
		code, _, _ = get(func(r *http.Request) { r.URL.Path = p })
		if code != 200 {
			t.Fatalf("GET %s: %d", p, code)
		}
	}
	code, _, _ = get(func(r *http.Request) {
		r.URL.Path = "/"
		r.Header.Set("Authorization", "Bearer "+testToken)
	})
	if code != 200 {
		t.Fatalf("GET / with token: %d", code)
	}
}

func TestHostAndOrigin(t *testing.T) {
	e := newEnv(t, textScript(), func(o *server.Options, _ *servertest.Config) {
		o.AllowedHosts = []string{"tandem.example"}
		o.AllowedOrigins = []string{"https://app.example"}
	})
	cases := []struct {
		name, host, origin string
		want               int
		code               string
	}{
		{"own host", "", "", 200, ""},
		{"localhost", "localhost:1234", "", 200, ""},
		{"ipv6 loopback", "[::1]:7337", "", 200, ""},
		{"configured host", "tandem.example", "", 200, ""},
		{"rebinding host", "evil.example:7337", "", 403, "bad_host"},
		{"cross-site origin", "", "http://evil.example", 403, "bad_origin"},
		{"null origin", "", "null", 403, "bad_origin"},
		{"same origin", "", "SELF", 200, ""},
		{"other port on localhost", "", "http://127.0.0.1:1", 403, "bad_origin"},
		{"configured origin", "", "https://app.example", 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.ts.URL+"/api/health", nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin == "SELF" {
				c.origin = e.ts.URL
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, b.String())
			}
			if c.code != "" && errCode(t, b.Bytes()) != c.code {
				t.Fatalf("code: %s", b.String())
			}
			acao := resp.Header.Get("Access-Control-Allow-Origin")
			if (c.origin == "https://app.example") != (acao != "") {
				t.Fatalf("CORS header %q for origin %q", acao, c.origin)
			}
		})
	}
}

func TestBodyLimitAndBadJSON(t *testing.T) {
	e := newEnv(t, textScript())
	id := e.newSession()
	big := `{"text":"` + strings.Repeat("a", 2<<20) + `"}`
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/sessions/"+id+"/messages", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || errCode(t, b.Bytes()) != "body_too_large" {
		t.Fatalf("oversized body: %d %s", resp.StatusCode, b.String())
	}
	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{"text": "x", "bogus": 1}, "bad_json"},
		{map[string]any{"text": "  "}, "empty_text"},
		{[]int{1}, "bad_json"},
	} {
		code, data := e.do("POST", "/api/sessions/"+id+"/messages", c.body)
		if code != 400 || errCode(t, data) != c.code {
			t.Fatalf("%v: %d %s", c.body, code, data)
		}
	}
}

func TestUnknownIDsAndRoutes(t *testing.T) {
	e := newEnv(t, textScript())
	cases := []struct {
		method, path string
		body         any
		want         int
		code         string
	}{
		{"GET", "/api/sessions/ses_doesnotexist", nil, 404, "not_found"},
		{"DELETE", "/api/sessions/ses_doesnotexist", nil, 404, "not_found"},
		{"POST", "/api/sessions/ses_doesnotexist/messages", map[string]string{"text": "hi"}, 404, "not_found"},
		{"GET", "/api/sessions/ses_doesnotexist/events", nil, 404, "not_found"},
		{"POST", "/api/sessions/ses_doesnotexist/interrupt", nil, 404, "not_found"},
		{"PATCH", "/api/sessions/ses_doesnotexist", map[string]string{"mode": "trust"}, 404, "not_found"},
		{"GET", "/api/sessions/ses_doesnotexist/usage", nil, 404, "not_found"},
		{"POST", "/api/permissions/perm_404", map[string]string{"decision": "allow_once"}, 404, "not_found"},
		{"DELETE", "/api/workspaces/wsp_nope", nil, 404, "not_found"},
		{"GET", "/api/nothing-here", nil, 404, "not_found"},
		{"PUT", "/api/sessions", nil, 405, "method_not_allowed"},
		{"POST", "/api/permissions/perm_1", map[string]string{"decision": "maybe"}, 400, "bad_decision"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			code, data := e.do(c.method, c.path, c.body)
			if code != c.want || errCode(t, data) != c.code {
				t.Fatalf("status %d, want %d %s: %s", code, c.want, c.code, data)
			}
		})
	}
}
