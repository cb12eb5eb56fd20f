// Command serve benchmarks `tandem serve`: it starts the server with a
// scripted model server and the real native runtime, runs many sessions at
// once, each a multi-step scripted turn watched by an SSE client, and
// reports throughput, server-side event latency (event creation to SSE
// write), peak memory, and whether any event was lost or duplicated.
//
//	go run ./bench/serve -sessions 200 -steps 20
//	go run ./bench/serve -big-output 100   # memory kept after a 100 MiB tool output
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

const token = "bench-token-0123456789abcdef"

func main() {
	sessions := flag.Int("sessions", 200, "concurrent sessions")
	steps := flag.Int("steps", 20, "model steps per turn (all but the last call a tool)")
	bigOutput := flag.Int("big-output", 0, "instead: one Bash call printing this many MiB, and the memory the server keeps")
	flag.Parse()
	var err error
	if *bigOutput > 0 {
		err = runBigOutput(*bigOutput)
	} else {
		err = run(*sessions, *steps)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// latencies collects event-created-to-written durations.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(created time.Time) {
	d := time.Since(created)
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) pct(p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	slices.Sort(l.d)
	return l.d[int(float64(len(l.d)-1)*p)]
}

func script(steps int) scripted.Script {
	var s scripted.Script
	for i := 0; i < steps-1; i++ {
		s.Steps = append(s.Steps, scripted.Step{Text: fmt.Sprintf("Step %d: reading the file again.", i+1),
			ToolCalls: []scripted.ToolCall{scripted.Call("Read", map[string]string{"file_path": "notes.txt"})}})
	}
	s.Steps = append(s.Steps, scripted.TextStep("All steps done; the notes say hello."))
	return s
}

func run(nSessions, steps int) error {
	dir, err := os.MkdirTemp("", "tandem-bench-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	stack, err := servertest.New(dir, servertest.Config{Script: script(steps), NoPermissions: true})
	if err != nil {
		return err
	}
	defer stack.Close()
	ws := filepath.Join(dir, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		return err
	}
	lat := &latencies{}
	srv, err := server.New(server.Options{Manager: stack.Manager, Token: token, DataDir: dir,
		DefaultModel: servertest.Model, OnEventWritten: func(_ string, _ int64, created time.Time) { lat.add(created) }})
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
	base := "http://" + ln.Addr().String()
	c := &client{base: base, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * nSessions, MaxConnsPerHost: 0}}}
	if _, err := c.call("POST", "/api/workspaces", map[string]string{"path": ws}); err != nil {
		return err
	}

	start := time.Now()
	var wg sync.WaitGroup
	results := make([]result, nSessions)
	for i := range nSessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.session(ws)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cancel()
	if err := <-served; err != nil {
		return err
	}

	var total, lost, dup, failed int
	for _, r := range results {
		total += r.events
		lost += r.lost
		dup += r.dup
		if r.err != nil {
			failed++
			if failed <= 3 {
				fmt.Fprintln(os.Stderr, "session failed:", r.err)
			}
		}
	}
	fmt.Printf("sessions            %d (%d steps per turn, %d failed)\n", nSessions, steps, failed)
	fmt.Printf("events delivered    %d in %s\n", total, elapsed.Round(time.Millisecond))
	fmt.Printf("events per second   %.0f\n", float64(total)/elapsed.Seconds())
	fmt.Printf("latency p50         %s (event created -> written to SSE)\n", lat.pct(0.50))
	fmt.Printf("latency p99         %s\n", lat.pct(0.99))
	fmt.Printf("peak RSS (VmHWM)    %s\n", vmHWM())
	fmt.Printf("lost events         %d\n", lost)
	fmt.Printf("duplicate events    %d\n", dup)
	if lost > 0 || dup > 0 || failed > 0 {
		return fmt.Errorf("%d lost, %d duplicated, %d sessions failed", lost, dup, failed)
	}
	return nil
}

type client struct {
	base string
	http *http.Client
}

func (c *client) call(method, path string, body any) ([]byte, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, buf.String())
	}
	return buf.Bytes(), nil
}

type result struct {
	events, lost, dup int
	done              bool // the stream reached the turn's done event
	err               error
}

// session creates a session, attaches an SSE client, runs one turn and
// checks the stream: seqs 1..n, each once, ending with done.
func (c *client) session(ws string) result {
	data, err := c.call("POST", "/api/sessions", map[string]string{"cwd": ws})
	if err != nil {
		return result{err: err}
	}
	var s struct{ ID string }
	json.Unmarshal(data, &s)
	req, _ := http.NewRequest("GET", c.base+"/api/sessions/"+s.ID+"/events?last_event_id=0", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.http.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	if _, err := c.call("POST", "/api/sessions/"+s.ID+"/messages", map[string]string{"text": "go"}); err != nil {
		return result{err: err}
	}
	seen := map[int64]bool{}
	var r result
	var maxSeq int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev event.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return result{err: err}
		}
		if ev.Type == event.KeepAlive {
			continue
		}
		r.events++
		if seen[ev.Seq] {
			r.dup++
		}
		seen[ev.Seq] = true
		maxSeq = max(maxSeq, ev.Seq)
		if ev.Type == event.Done {
			r.done = true
			break
		}
	}
	if err := sc.Err(); err != nil {
		r.err = err
	}
	for i := int64(1); i <= maxSeq; i++ {
		if !seen[i] {
			r.lost++
		}
	}
	if maxSeq == 0 {
		r.err = fmt.Errorf("session %s: no events", s.ID)
	}
	return r
}

func vmHWM() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
