package mcp

import (
	"context"
	"encoding/json"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// npmBin returns the path of an npm-installed test server, skipping the
// test when testdeps/node_modules is absent.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not installed: run `cd testdeps && npm ci` (CI installs it)", name)
	}
	return p
}

// messages lists the events' Message fields, for failure output.
func messages(l *turntest.Events) []string {
	var out []string
	for _, e := range l.All() {
		out = append(out, e.Message)
	}
	return out
}

type harness struct {
	m   *Manager
	reg *tool.Registry
	log *turntest.Events
}

func startManager(t *testing.T, servers Servers, tweak ...func(*Options)) *harness {
	t.Helper()
	h := &harness{reg: tool.NewRegistry(), log: &turntest.Events{}}
	opts := Options{Servers: servers, Registry: h.reg, Emit: h.log.Emit, WorkDir: t.TempDir(),
		ClientName: "tandem-test", ClientVersion: "0"}
	for _, f := range tweak {
		f(&opts)
	}
	h.m = NewManager(opts)
	t.Cleanup(func() { _ = h.m.Close() })
	h.m.Start(context.Background())
	return h
}

// waitState waits until server name reaches state.
func (h *harness) waitState(t *testing.T, name string, want State, within time.Duration) ServerStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	var last ServerStatus
	for time.Now().Before(deadline) {
		for _, st := range h.m.Status() {
			if st.Name == name {
				last = st
				if st.State == want {
					return st
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server %s did not reach %s within %s; last status %+v; events %q", name, want, within, last, messages(h.log))
	return last
}

func (h *harness) call(t *testing.T, name string, input any) tool.Result {
	t.Helper()
	tl, ok := h.reg.Get(name)
	if !ok {
		t.Fatalf("tool %s not registered; have %v", name, h.reg.Names())
	}
	b, _ := json.Marshal(input)
	res, err := tl.Execute(context.Background(), tool.Call{ID: "t1", Name: name, Input: b, Env: tool.NewEnv("s", t.TempDir(), nil, t.TempDir())})
	if err != nil {
		t.Fatalf("%s: Go error %v", name, err)
	}
	return res
}

func newHTTPTestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}
