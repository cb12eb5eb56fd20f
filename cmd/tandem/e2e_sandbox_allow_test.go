package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// In `tandem serve` with the sandbox on, a host off the allow-list is
// refused and the model is told the allowance; allowing it for the session
// over the API (what the web UI's button sends) lets the next command
// through, and only that session's sandbox is widened.
func TestE2EServeSandboxAllowHost(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte("SERVED-7713"))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	host := ln.Addr().String()
	curl := "curl -sS -m 10 --noproxy '' http://" + host + "/"
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("first", "Bash", map[string]any{"command": curl})),
		scripted.TextStep("refused"),
		scripted.ToolStep(scripted.CallID("second", "Bash", map[string]any{"command": curl})),
		scripted.TextStep("reached"),
	}})
	if r := x.Run("sandbox", "check"); r.Code != 0 {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	c := startServe(t, x, "--permission-mode", "trust", "--sandbox")
	id := fmt.Sprint(c.call("POST", "/api/sessions", map[string]string{"cwd": x.Work, "mode": "trust"})["id"])
	turn := func(prompt string, n int) {
		t.Helper()
		c.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": prompt})
		waitFor(t, "the turn to end", 60*time.Second, func() bool {
			return c.call("GET", "/api/sessions/"+id, nil)["status"] == "idle" && len(x.srv.MainRequests()) >= n
		})
	}
	turn("fetch it", 2)
	if hits.Load() != 0 {
		t.Fatalf("the host off the allow-list was reached")
	}
	if req := requestText(x.lastMain()); !strings.Contains(req, "not on sandbox.network.allow") {
		t.Errorf("the model was not told the refusal and its allowance:\n%s", req)
	}

	other := fmt.Sprint(c.call("POST", "/api/sessions", map[string]string{"cwd": x.Work, "mode": "trust"})["id"])
	for _, bad := range []map[string]string{{"host": ""}, {"host": "*"}} {
		if code, out := c.do("POST", "/api/sessions/"+id+"/sandbox/allow", bad); code != 400 {
			t.Errorf("allow %v: %d %v, want 400", bad, code, out)
		}
	}
	c.call("POST", "/api/sessions/"+id+"/sandbox/allow", map[string]string{"host": host})
	turn("fetch it again", 4)
	if hits.Load() != 1 || !strings.Contains(requestText(x.lastMain()), "SERVED-7713") {
		t.Errorf("after allowing %s: %d requests reached it; the model saw:\n%s", host, hits.Load(), requestText(x.lastMain()))
	}
	if code, out := c.do("POST", "/api/sessions/"+other+"/sandbox/allow", map[string]string{"host": "*.example.com"}); code != 200 {
		t.Errorf("allowing in another session: %d %v", code, out)
	}
}
