package main

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The real `tandem serve` binary: a turn started over HTTP, then SIGTERM in
// the middle of it. The process exits cleanly and the session is stored
// whole (the user's message, the interrupted turn), ready to resume.
func TestE2EServeShutsDownCleanlyOnSIGTERM(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "sleep " + marker})),
		scripted.TextStep("never"),
	}})
	srv := startServe(t, x, "--permission-mode", "trust")
	p, call := srv.p, srv.call
	sess := call("POST", "/api/sessions", map[string]string{"cwd": x.Work, "mode": "trust"})
	id := fmt.Sprint(sess["id"])
	call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "sleep please"})
	waitFor(t, "the sleep to start", 30*time.Second, func() bool {
		got := call("GET", "/api/sessions/"+id, nil)
		return got["status"] == "running" && len(pidsWithArg(t, marker)) > 0
	})
	start := time.Now()
	p.Signal(syscall.SIGTERM)
	res := p.Wait(40 * time.Second)
	if res.Code != 0 {
		t.Fatalf("serve exited %d after SIGTERM\nstderr:\n%s", res.Code, p.Stderr())
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	if pids := pidsWithArg(t, marker); len(pids) > 0 {
		t.Errorf("the tool's sleep survived the shutdown: %v", pids)
	}
	exp, _ := x.Export(id)
	raw, _ := json.Marshal(exp)
	for _, want := range []string{"sleep please", "sleep " + marker, "tool_result"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("stored session lacks %q:\n%s", want, raw)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
