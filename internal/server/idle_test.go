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

// opens counts the session's live openings: a SessionStart hook appends a
// line to a file each time the session is equipped.
func opens(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

func TestIdleSessionsAreClosedAndReopen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "opens")
	e := newEnv(t, scripted.Script{}, func(o *server.Options, c *servertest.Config) {
		o.IdleTimeout = 60 * time.Millisecond
		c.UserConfig = map[string]any{"permissions": map[string]any{"hooks": map[string]any{"SessionStart": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo open >> " + file}}}}}}}
	})
	id := e.newSession()
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	first := opens(t, file)
	if first < 1 {
		t.Fatalf("the session never opened (%d)", first)
	}
	time.Sleep(400 * time.Millisecond)
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	second := opens(t, file)
	if second != first+1 {
		t.Fatalf("the idle session was not closed and reopened: %d openings, then %d", first, second)
	}
	// A session with an SSE client attached is not evicted.
	_, stop := e.stream(id, "")
	defer stop()
	time.Sleep(400 * time.Millisecond)
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	if third := opens(t, file); third != second {
		t.Errorf("a session with an SSE client was evicted (%d openings, then %d)", second, third)
	}
}
