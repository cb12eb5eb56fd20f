package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// hookLog counts lines of a file that the session's SessionStart and
// SessionEnd hooks append "open" and "close" to, each time the session is
// equipped or closed.
func hookLog(t *testing.T, file, word string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(data), word+"\n")
}

func TestIdleSessionsAreClosedAndReopen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "log")
	hook := func(word string) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo " + word + " >> " + file}}}}
	}
	e := newEnv(t, scripted.Script{}, func(o *server.Options, c *servertest.Config) {
		o.IdleTimeout = 60 * time.Millisecond
		c.UserConfig = map[string]any{"permissions": map[string]any{"hooks": map[string]any{
			"SessionStart": hook("open"), "SessionEnd": hook("close")}}}
	})
	id := e.newSession()
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	opened := hookLog(t, file, "open")
	if opened < 1 {
		t.Fatalf("the session never opened (%d)", opened)
	}
	// The sweep closes the idle session (its SessionEnd hook runs).
	deadline := time.Now().Add(30 * time.Second)
	for hookLog(t, file, "close") < opened {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	if got := hookLog(t, file, "open"); got != opened+1 {
		t.Fatalf("the closed session was not reopened: %d openings, then %d", opened, got)
	}
	// A session with an SSE client attached is not evicted.
	_, stop := e.stream(id, "")
	defer stop()
	// A sweep that chose the session before the client came may still be
	// closing it: the request reopens it if so, and every opening but the
	// live one ends up closed.
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	for hookLog(t, file, "close") < hookLog(t, file, "open")-1 {
		if time.Now().After(deadline) {
			t.Fatal("a closing session never ran its SessionEnd hook")
		}
		time.Sleep(20 * time.Millisecond)
	}
	closed := hookLog(t, file, "close")
	time.Sleep(400 * time.Millisecond)
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	if got := hookLog(t, file, "close"); got != closed {
		t.Errorf("a session with an SSE client was evicted (%d closings, then %d)", closed, got)
	}
}
