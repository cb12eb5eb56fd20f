package server_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/session"
)

// liveSpy records the live session each MCP status request sees.
type liveSpy struct {
	mu    sync.Mutex
	lives []*session.Live
}

func (s *liveSpy) MCPStatus(l *session.Live) (any, any) {
	s.mu.Lock()
	s.lives = append(s.lives, l)
	s.mu.Unlock()
	return []any{}, []any{}
}
func (s *liveSpy) MCPAction(*session.Live, string, string) error { return nil }

func TestIdleSessionsAreClosedAndReopen(t *testing.T) {
	spy := &liveSpy{}
	e := newEnv(t, scripted.Script{}, func(o *server.Options, _ *servertest.Config) {
		o.MCP, o.IdleTimeout = spy, 60*time.Millisecond
	})
	id := e.newSession()
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	time.Sleep(400 * time.Millisecond)
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	spy.mu.Lock()
	first, second := spy.lives[0], spy.lives[1]
	spy.mu.Unlock()
	if first == second {
		t.Fatal("the idle session was not closed")
	}
	if _, err := first.Run(context.Background(), "x", session.TurnOptions{}); err == nil {
		t.Error("the evicted live session still runs turns")
	}
	// A session with an SSE client attached is not evicted.
	_, stop := e.stream(id, "")
	defer stop()
	time.Sleep(400 * time.Millisecond)
	e.mustDo("GET", "/api/sessions/"+id+"/mcp", nil, 200, nil)
	spy.mu.Lock()
	third := spy.lives[2]
	spy.mu.Unlock()
	if third != second {
		t.Error("a session with an SSE client was evicted")
	}
}
