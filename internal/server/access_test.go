package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// doAs is e.do with another token.
func (e *env) doAs(tok, method, path string, body any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, e.ts.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// team is a server with users: boss (an admin), vic (a viewer of the
// workspace), ed (an editor) and eve (a member of nothing), and a session
// the server token started before any user existed.
type team struct {
	*env
	boss, vic, ed, eve string // tokens
	wsID, sid          string
}

func newTeam(t *testing.T, script scripted.Script, opts ...envOpt) *team {
	e := newEnv(t, script, opts...)
	tm := &team{env: e}
	tm.sid = e.newSession()
	var wss struct {
		Workspaces []struct{ ID, Path string }
	}
	e.mustDo("GET", "/api/workspaces", nil, 200, &wss)
	tm.wsID = wss.Workspaces[0].ID
	add := func(tok, name string, admin bool) string {
		t.Helper()
		code, data := e.doAs(tok, "POST", "/api/users", map[string]any{"name": name, "admin": admin})
		if code != 201 {
			t.Fatalf("add %s: %d %s", name, code, data)
		}
		var out struct{ Token string }
		json.Unmarshal(data, &out)
		return out.Token
	}
	tm.boss = add(testToken, "boss", true)
	// From the first user on, the server token is refused.
	if code, data := e.do("GET", "/api/sessions", nil); code != 401 || !strings.Contains(string(data), "personal token") {
		t.Fatalf("the server token after the first user: %d %s", code, data)
	}
	tm.vic, tm.ed, tm.eve = add(tm.boss, "vic", false), add(tm.boss, "ed", false), add(tm.boss, "eve", false)
	for name, role := range map[string]string{"vic": "viewer", "ed": "editor"} {
		if code, data := e.doAs(tm.boss, "PUT", "/api/workspaces/"+tm.wsID+"/members/"+name, map[string]string{"role": role}); code != 200 {
			t.Fatalf("make %s %s: %d %s", name, role, code, data)
		}
	}
	return tm
}

// openAPIRoutes lists docs/openapi.yaml's "METHOD PATH"s.
func openAPIRoutes(t *testing.T) []string {
	data, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, item := range doc.Paths {
		for m := range item {
			switch m {
			case "get", "put", "post", "delete", "patch":
				out = append(out, strings.ToUpper(m)+" "+p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// request fills a route's path parameters and gives it the body and
// query naming the team's workspace, session and users.
func (tm *team) request(route string) (method, path string, body any) {
	method, path, _ = strings.Cut(route, " ")
	id := tm.sid
	if strings.HasPrefix(path, "/api/workspaces/") {
		id = tm.wsID
	}
	path = strings.NewReplacer("{id}", id, "{request_id}", "req_none", "{server}", "srv", "{user}", "vic").Replace(path)
	q := url.Values{"cwd": {tm.ws}, "path": {tm.ws}}
	path += "?" + q.Encode()
	switch {
	case strings.Contains(path, "/permissions/"):
		body = map[string]any{"decision": "allow_once"}
	case method == "POST" || method == "PUT" || method == "PATCH":
		body = map[string]any{"cwd": tm.ws, "path": tm.ws, "text": "hi", "role": "owner", "name": "mallory", "admin": true,
			"decision": "allow_once", "to": 1, "action": "disable", "host": "example.com", "mode": "trust", "disabled": true}
	}
	return method, path, body
}

// TestRouteWalkAsOutsider walks every route of docs/openapi.yaml as a
// user who belongs to no workspace: only the routes that show the caller
// their own things answer; every other is refused (403) or finds nothing
// (404), and the lists hold nothing of the workspace.
func TestRouteWalkAsOutsider(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	open := []string{"GET /api/health", "GET /api/me", "GET /api/sessions", "GET /api/workspaces",
		"GET /api/providers", "GET /api/models", "POST /api/logout"}
	for _, route := range openAPIRoutes(t) {
		if route == "POST /api/login" {
			continue // public: it checks the token it is given
		}
		method, path, body := tm.request(route)
		code, data := tm.doAs(tm.eve, method, path, body)
		if slices.Contains(open, route) {
			if code != 200 {
				t.Errorf("%s as an outsider: %d %s, want 200", route, code, data)
			}
			if strings.Contains(string(data), tm.sid) || strings.Contains(string(data), tm.wsID) {
				t.Errorf("%s shows an outsider the team's session or workspace: %s", route, data)
			}
			continue
		}
		if code != 403 && code != 404 {
			t.Errorf("%s as an outsider: %d %s, want 403 or 404", route, code, data)
		}
	}
	// Nothing changed: the session is still there, unchanged, for its team.
	code, data := tm.doAs(tm.vic, "GET", "/api/sessions/"+tm.sid, nil)
	if code != 200 || strings.Contains(string(data), `"mode":"trust"`) {
		t.Errorf("after the outsider's walk: %d %s", code, data)
	}
}

// TestRouteWalkAsViewer: a viewer reads every session route of their
// workspace and changes nothing; admin routes are refused.
func TestRouteWalkAsViewer(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	for _, route := range openAPIRoutes(t) {
		method, path, body := tm.request(route)
		if route == "POST /api/login" || route == "POST /api/logout" || route == "GET /api/sessions/{id}/events" {
			continue // the stream is read below
		}
		code, data := tm.doAs(tm.vic, method, path, body)
		adminOnly := strings.HasPrefix(route, "GET /api/users") || strings.Contains(route, "/api/users") ||
			route == "GET /api/audit" || route == "GET /api/replicas" || route == "POST /api/workspaces" || route == "DELETE /api/workspaces/{id}" ||
			strings.Contains(route, "/members")
		switch {
		case method == "GET" && !adminOnly:
			if code == 403 || code == 404 {
				t.Errorf("%s as a viewer: %d %s, want it readable", route, code, data)
			}
		case route == "POST /api/permissions/{request_id}":
			if code != 404 {
				t.Errorf("%s as a viewer: %d %s, want 404", route, code, data)
			}
		default:
			if code != 403 && code != 404 {
				t.Errorf("%s as a viewer: %d %s, want 403", route, code, data)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", tm.ts.URL+"/api/sessions/"+tm.sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tm.vic)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a viewer's event stream: %d", resp.StatusCode)
	}
}
