package main

import (
	"fmt"
	"runtime"
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
	cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a | fold -w 1000", mb<<20)
	sc := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": cmd})),
		scripted.TextStep("done"),
	}}
	b, err := startStack(servertest.Config{Script: sc, NoPermissions: true}, server.Options{}, nil)
	if err != nil {
		return err
	}
	defer b.close()
	runtime.GC()
	before := heapMiB()
	start := time.Now()
	r := b.client.session(b.ws, 0)
	if r.err != nil {
		return r.err
	}
	if r.lost > 0 || r.dup > 0 {
		return fmt.Errorf("the reading client lost %d and got %d duplicated events", r.lost, r.dup)
	}
	elapsed := time.Since(start)
	runtime.GC()
	after := heapMiB()
	if err := b.shutdown(); err != nil {
		return err
	}
	fmt.Printf("bash output         %d MiB in %s, %d events to the SSE client\n", mb, elapsed.Round(time.Millisecond), r.events)
	fmt.Printf("heap before / after %.1f / %.1f MiB (live heap after GC, turn over, session still open)\n", before, after)
	fmt.Printf("peak RSS (VmHWM)    %s\n", procStatus("VmHWM"))
	return nil
}

func heapMiB() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}
