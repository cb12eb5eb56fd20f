package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// runBigOutput measures what one Bash call printing mb megabytes costs the
// server's memory: one session, one SSE client reading everything, the
// turn run to its end; then the heap the server still holds (the replay
// ring is bounded by bytes and coalesces the tool's output).
func runBigOutput(mb int) error {
	dir, err := os.MkdirTemp("", "tandem-bench-serve-big-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a | fold -w 1000", mb<<20)
	sc := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": cmd})),
		scripted.TextStep("done"),
	}}
	stack, err := servertest.New(dir, servertest.Config{Script: sc, NoPermissions: true})
	if err != nil {
		return err
	}
	defer stack.Close()
	ws := filepath.Join(dir, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	srv, err := server.New(server.Options{Manager: stack.Manager, Token: token, DataDir: dir,
		DefaultModel: servertest.Model})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	c := &client{base: "http://" + ln.Addr().String(), http: &http.Client{}}
	if _, err := c.call("POST", "/api/workspaces", map[string]string{"path": ws}); err != nil {
		return err
	}
	runtime.GC()
	before := heapMiB()
	start := time.Now()
	r := c.session(ws)
	if r.err != nil {
		return r.err
	}
	if !r.done {
		return fmt.Errorf("the reading client was cut off after %d events", r.events)
	}
	if r.lost > 0 || r.dup > 0 {
		return fmt.Errorf("the reading client lost %d and got %d duplicated events", r.lost, r.dup)
	}
	elapsed := time.Since(start)
	runtime.GC()
	after := heapMiB()
	cancel()
	if err := <-served; err != nil {
		return err
	}
	fmt.Printf("bash output         %d MiB in %s, %d events to the SSE client\n", mb, elapsed.Round(time.Millisecond), r.events)
	fmt.Printf("heap before / after %.1f / %.1f MiB (live heap after GC, turn over, session still open)\n", before, after)
	fmt.Printf("peak RSS (VmHWM)    %s\n", strings.TrimSpace(vmHWM()))
	return nil
}

func heapMiB() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}
