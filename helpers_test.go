package tandem_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// stack is a tandem home in a temporary folder whose "anthropic" provider
// is the scripted model server.
type stack struct {
	t    *testing.T
	srv  *scripted.Server
	Home string
	Work string
	env  map[string]string
}

func newStack(t *testing.T, steps ...scripted.Step) *stack {
	t.Helper()
	srv := scripted.New(scripted.Script{Steps: steps})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	root := t.TempDir()
	st := &stack{t: t, srv: srv, Home: filepath.Join(root, "home"), Work: filepath.Join(root, "work")}
	for _, d := range []string{st.Home, st.Work, filepath.Join(root, "user")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st.Work, _ = filepath.EvalSymlinks(st.Work)
	st.env = scriptedEnv(url, filepath.Join(root, "user"))
	return st
}

// scriptedEnv is an environment that reaches the scripted server as
// Anthropic, with HOME somewhere empty so the user's own files stay out.
func scriptedEnv(url, home string) map[string]string {
	return map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test-key", "HOME": home}
}

// open opens an engine on the stack's home with opts laid over it.
func (st *stack) open(opts tandem.Options) *tandem.Engine {
	st.t.Helper()
	opts.Home = st.Home
	opts.Getenv = func(k string) string { return st.env[k] }
	if opts.Model == "" {
		opts.Model = "anthropic/claude-sonnet-5-5"
	}
	eng, err := tandem.Open(context.Background(), opts)
	if err != nil {
		st.t.Fatal(err)
	}
	st.t.Cleanup(func() { eng.Close() })
	return eng
}

// ctx is a context that gives a test's turn a generous deadline.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// recorder collects events; safe for the session's goroutines.
type recorder struct {
	mu     sync.Mutex
	events []tandem.Event
}

func (r *recorder) add(e tandem.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []tandem.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tandem.Event(nil), r.events...)
}

func (r *recorder) ofType(t tandem.EventType) []tandem.Event {
	var out []tandem.Event
	for _, e := range r.all() {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// requestHas reports whether the n-th main model request's body contains s.
func (st *stack) requestHas(n int, s string) bool {
	reqs := st.srv.MainRequests()
	return n < len(reqs) && strings.Contains(string(reqs[n].RawBody), s)
}
