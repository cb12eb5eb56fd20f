package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// runIdle measures what idle sessions cost the server: n sessions created
// through the API (so each is live: equipped with its tools and permission
// state, as after a turn) and each watched by one SSE client, no turn
// running. The clients run in a child process so that their connections'
// memory is not counted as the server's.
func runIdle(n int) error {
	// No turn runs, so the model is never called.
	b, err := startStack(servertest.Config{NoPermissions: true, ModelURL: "http://127.0.0.1:9"}, server.Options{}, nil)
	if err != nil {
		return err
	}
	defer b.close()
	// One session first, so what every session shares (tool descriptions,
	// prepared statements, lazily built tables) is in the baseline.
	if _, err := b.client.createSession(b.ws); err != nil {
		return err
	}
	base := measure()
	start := time.Now()
	ids, err := createSessions(b.client, b.ws, n)
	if err != nil {
		return err
	}
	created := time.Since(start)
	idsFile := filepath.Join(b.dir, "ids")
	if err := os.WriteFile(idsFile, []byte(strings.Join(ids, "\n")), 0o644); err != nil {
		return err
	}
	start = time.Now()
	clients, ready, err := startChild("-child", "clients", b.client.base, idsFile)
	if err != nil {
		return err
	}
	defer clients.stop()
	if ready != "ready "+strconv.Itoa(n) {
		return fmt.Errorf("the client process answered %q", ready)
	}
	attached := time.Since(start)
	time.Sleep(time.Second) // let the connections settle
	held := measure()
	per := func(a, b uint64) string { return fmt.Sprintf("%.1f KiB", float64(a-min(a, b))/float64(n)/1024) }
	fmt.Printf("idle sessions       %d, each with one SSE client (in a child process); created in %s, streams attached in %s\n",
		n, created.Round(time.Millisecond), attached.Round(time.Millisecond))
	fmt.Printf("                    %12s %12s %12s\n", "baseline", "held", "per session")
	fmt.Printf("RSS (VmRSS)         %9.1f MiB %9.1f MiB %12s\n", mib(base.rss), mib(held.rss), per(held.rss, base.rss))
	fmt.Printf("Go heap in use      %9.1f MiB %9.1f MiB %12s\n", mib(base.heap), mib(held.heap), per(held.heap, base.heap))
	fmt.Printf("goroutine stacks    %9.1f MiB %9.1f MiB %12s\n", mib(base.stacks), mib(held.stacks), per(held.stacks, base.stacks))
	fmt.Printf("goroutines          %9d     %9d     %9.1f\n", base.goroutines, held.goroutines, float64(held.goroutines-base.goroutines)/float64(n))
	fmt.Printf("(baseline: the server with one session and no client; heap after a GC)\n")
	return nil
}

type memFigures struct {
	rss, heap, stacks uint64
	goroutines        int
}

func measure() memFigures {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rss, _ := strconv.ParseUint(strings.TrimSuffix(procStatus("VmRSS"), " kB"), 10, 64)
	return memFigures{rss: rss << 10, heap: m.HeapInuse, stacks: m.StackInuse, goroutines: runtime.NumGoroutine()}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// createSessions creates n sessions, a few requests at a time.
func createSessions(c *client, ws string, n int) ([]string, error) {
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ids[i], errs[i] = c.createSession(ws)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// holdClients is the -child clients mode: open one event stream per
// session id in the file, print "ready N" once all are open, hold them
// (reading whatever comes) until stdin closes.
func holdClients(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: -child clients BASE_URL IDS_FILE")
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	ids := strings.Fields(string(data))
	c := &client{base: args[0], http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(ids)}}}
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	bodies := make([]io.ReadCloser, len(ids))
	sem := make(chan struct{}, 16)
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			req, _ := http.NewRequest("GET", c.base+"/api/sessions/"+id+"/events", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := c.http.Do(req)
			if err == nil && resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				err = fmt.Errorf("GET events of %s: %s", id, resp.Status)
			}
			if err != nil {
				errs[i] = err
				return
			}
			bodies[i] = resp.Body
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, body := range bodies {
		go io.Copy(io.Discard, bufio.NewReader(body))
	}
	fmt.Printf("ready %d\n", len(ids))
	waitStdin()
	return nil
}
