package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
)

// A session id in the path becomes a folder name when the session is
// deleted (its snapshots, its tool output): an id that is not a single
// path component is refused before anything is looked up or removed.
func TestSessionIDInPathIsRefused(t *testing.T) {
	e := newEnv(t, textScript())
	// The data folder's checkpoints live at <dir>/checkpoints/sessions/<id>,
	// so "../../.." named the data folder itself.
	if _, err := e.stack.App.Store.CreateSession(context.Background(), store.Session{ID: "../../..", Cwd: e.ws}); err == nil {
		t.Error("the store kept a session with id ../../..")
	}
	sentinel := filepath.Join(e.dir, "sentinel")
	if err := os.WriteFile(sentinel, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/api/sessions/..%2F..%2F.."},
		{"GET", "/api/sessions/..%2F..%2F../checkpoints"},
		{"POST", "/api/sessions/..%2F..%2F../rewind"},
		{"GET", "/api/sessions/a%5Cb"},
		{"GET", "/api/sessions/a%0Ab"},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{"to": 1, "force": true}
		}
		code, data := e.do(c.method, c.path, body)
		if code != 400 || errCode(t, data) != "bad_id" {
			t.Errorf("%s %s: %d %s, want 400 bad_id", c.method, c.path, code, data)
		}
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Fatalf("the data folder was removed: %v", err)
	}
}

// The rewind and the checkpoint listing of a session whose folder is no
// longer inside a registered workspace are refused, as its turns are.
func TestRewindNeedsARegisteredWorkspace(t *testing.T) {
	e := newEnv(t, textScript())
	id := e.newSession()
	var list struct {
		Workspaces []struct{ ID, Path string }
	}
	e.mustDo("GET", "/api/workspaces", nil, 200, &list)
	e.mustDo("DELETE", "/api/workspaces/"+list.Workspaces[0].ID, nil, 204, nil)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/sessions/" + id + "/checkpoints", nil},
		{"POST", "/api/sessions/" + id + "/rewind", map[string]any{"to": 1, "force": true}},
	} {
		code, data := e.do(c.method, c.path, c.body)
		if code != 403 || errCode(t, data) != "workspace_not_registered" {
			t.Errorf("%s %s: %d %s, want 403 workspace_not_registered", c.method, c.path, code, data)
		}
	}
}
