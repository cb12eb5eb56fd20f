// Command serve benchmarks `tandem serve`: it runs the server in this
// process with the real native runtime, a scripted model server in a child
// process, many sessions at once, each a multi-step scripted turn watched
// by an SSE client that drops its connection once mid-turn and resumes
// with Last-Event-ID; it reports throughput, server-side event latency
// (event creation to the SSE write being flushed), peak memory, and every
// event lost or duplicated (by seq, per session).
//
//	go run ./bench/serve -sessions 200 -steps 20
//	go run ./bench/serve -model-ms 500   # a model that takes 500 ms per call: the server not saturated
//	go run ./bench/serve -idle 1000        # memory held by 1,000 idle sessions with an SSE client each
//	go run ./bench/serve -big-output 100   # memory kept after a 100 MiB tool output
//	go run ./bench/serve -cpuprofile cpu.out -mutexprofile mu.out -blockprofile block.out -trace trace.out
//	go run ./bench/serve -postgres -replicas 2   # replicas as servers in this process, one PostgreSQL
//
// Replicas as processes (issue 27), the way they run in production:
//
//	go run ./bench/serve -procs -replicas 3 -sessions 600 -steps 20 [-tandem BIN] [-kill-after N]
//
// builds ./cmd/tandem (or runs BIN), starts a private durable PostgreSQL
// and the scripted model server on 127.0.0.1:42400 (-base-port), then N
// `tandem serve` replicas on the next ports, each with its own home, the
// database in TANDEM_DATABASE_URL, --permission-mode trust and the
// workspace registered. Client i creates its session on replica i, reads
// the stream on i+2, posts the prompt to i+1 (mod N) and resumes mid-turn
// with Last-Event-ID on i. Latency is from the event's ts (set by the
// replica running the turn) to the client reading it from another
// replica's stream: it includes the clients' own process, so the wake-up
// floor is printed beside it. Once the clients got -kill-after events
// (default sessions*steps*2, about half the run) the replica listing the
// most running turns is SIGKILLed; each turn it ran must move (a
// turn_moved status) and complete, and the bench prints the time from the
// kill to each turn's turn_moved and done events. It also prints each
// replica's peak RSS (VmHWM) and PostgreSQL's peak memory (PSS and summed
// RSS over its processes). A stream that ends early is resumed on the
// next replica alive. Events lost, duplicated or out of order are counted
// per client (tally.go); a lost seq is looked up in the stored log. The
// replicas' logs are kept (path printed) when the run fails.
package main

import (
	"context"
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
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

const token = "bench-token-0123456789abcdef"

func main() {
	sessions := flag.Int("sessions", 200, "concurrent sessions")
	steps := flag.Int("steps", 20, "model steps per turn (all but the last call a tool)")
	reconnectAfter := flag.Int("reconnect-after", 40, "each SSE client drops its connection after this many events and resumes with Last-Event-ID (0: never)")
	modelMS := flag.Int("model-ms", 0, "every model call waits this many ms before answering (0: at once, which keeps the server saturated)")
	modelInProcess := flag.Bool("model-in-process", false, "run the scripted model server in the server's process (as before the model moved to a child)")
	idle := flag.Int("idle", 0, "instead: hold this many idle sessions, each with an SSE client, and report their memory")
	bigOutput := flag.Int("big-output", 0, "instead: one Bash call printing this many MiB, and the memory the server keeps")
	cpuProf := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	mutexProf := flag.String("mutexprofile", "", "write a mutex contention profile to this file")
	blockProf := flag.String("blockprofile", "", "write a blocking profile to this file")
	traceOut := flag.String("trace", "", "write an execution trace to this file")
	childMode := flag.String("child", "", "internal: run as the bench's helper process (model, clients)")
	database := flag.String("database", "", "store sessions in this database (postgres://...) instead of a SQLite file")
	replicas := flag.Int("replicas", 1, "run this many servers (in this process, each its own store handle on the -postgres/-database database, with the stored event log): sessions and prompts go to the first, every SSE client reads from the second; with -procs, as separate `tandem serve` processes")
	procs := flag.Bool("procs", false, "with -replicas N: run the replicas as N `tandem serve` processes on a private PostgreSQL (turns on the durable queue), SIGKILL the busiest part-way through, and report failover and memory per replica")
	tandemBin := flag.String("tandem", "", "with -procs: the tandem binary to run (default: build ./cmd/tandem)")
	killAfter := flag.Int64("kill-after", 0, "with -procs: SIGKILL the replica running the most turns once the clients got this many events (0: sessions*steps*2, about half the run; -1: never)")
	basePort := flag.Int("base-port", 42400, "with -procs: the model server listens on this loopback port, replica i on base-port+1+i")
	sessionTimeout := flag.Duration("session-timeout", 15*time.Minute, "with -procs: a session whose turn has not ended by then fails")
	modelAddr := flag.String("model-addr", "127.0.0.1:0", "internal: the -child model server's address")
	postgres := flag.Bool("postgres", false, "store sessions in a private PostgreSQL started for the run (initdb; needs PostgreSQL's binaries)")
	flag.Parse()
	stopPG := func() error { return nil }
	if *postgres && *childMode == "" && !*procs {
		url, stop, err := pgtest.Private(pgtest.Options{Durable: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		*database, stopPG = url, stop
	}
	var err error
	switch *childMode {
	case "model":
		err = serveModel(*steps, *modelMS, *modelAddr)
	case "clients":
		err = holdClients(flag.Args())
	case "":
		var stop func()
		stop, err = startProfiles(*cpuProf, *mutexProf, *blockProf, *traceOut)
		if err == nil {
			switch {
			case *idle > 0:
				err = runIdle(*idle)
			case *bigOutput > 0:
				err = runBigOutput(*bigOutput)
			case *procs:
				err = runProcs(procsConfig{replicas: *replicas, sessions: *sessions, steps: *steps, modelMS: *modelMS,
					reconnectAfter: *reconnectAfter, tandem: *tandemBin, killAfter: *killAfter, basePort: *basePort, deadline: *sessionTimeout})
			default:
				err = run(*sessions, *steps, *modelMS, *reconnectAfter, *modelInProcess, *database, *replicas)
			}
		}
		stop()
	default:
		err = fmt.Errorf("unknown -child %q", *childMode)
	}
	if perr := stopPG(); err == nil {
		err = perr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// latencies collects event-created-to-flushed durations, by session and seq
// so they can be split by event type.
type latencies struct {
	mu sync.Mutex
	d  map[sessionSeq]time.Duration
}

type sessionSeq struct {
	session string
	seq     int64
}

func (l *latencies) add(session string, seq int64, created time.Time) {
	d := time.Since(created)
	l.mu.Lock()
	l.d[sessionSeq{session, seq}] = d
	l.mu.Unlock()
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[int(float64(len(ds)-1)*p)]
}

// benchStack is a server on a loopback port over a servertest stack.
type benchStack struct {
	dir    string
	ws     string
	stack  *servertest.Stack
	srv    *server.Server
	client *client
	cancel context.CancelFunc
	served chan error
	model  *child
}

// startStack starts a server in a fresh data folder; files are written to
// its workspace.
func startStack(cfg servertest.Config, opts server.Options, files map[string]string) (*benchStack, error) {
	dir, err := os.MkdirTemp("", "tandem-bench-serve-")
	if err != nil {
		return nil, err
	}
	b := &benchStack{dir: dir, ws: filepath.Join(dir, "project")}
	fail := func(err error) (*benchStack, error) {
		b.close()
		return nil, err
	}
	if b.stack, err = servertest.New(dir, cfg); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(b.ws, 0o755); err != nil {
		return fail(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.ws, name), []byte(text), 0o644); err != nil {
			return fail(err)
		}
	}
	opts.Manager, opts.Token, opts.DataDir = b.stack.Manager, token, dir
	if cfg.Database != "" && replicated(opts) {
		// A replica: events through the stored log, heartbeats.
		opts.EventLog, opts.Replicas = b.stack.Manager.Store(), b.stack.Manager.Store()
	}
	opts.DefaultModel = servertest.Model
	if b.srv, err = server.New(opts); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel, b.served = cancel, make(chan error, 1)
	go func() { b.served <- b.srv.Serve(ctx, ln) }()
	b.client = &client{base: "http://" + ln.Addr().String(), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}}
	if _, err := b.client.call("POST", "/api/workspaces", map[string]string{"path": b.ws}); err != nil {
		return fail(err)
	}
	return b, nil
}

// shutdown stops the server and returns what Serve returned.
func (b *benchStack) shutdown() error {
	if b.cancel == nil {
		return nil
	}
	b.cancel()
	b.cancel = nil
	return <-b.served
}

func (b *benchStack) close() {
	b.shutdown()
	if b.stack != nil {
		b.stack.Close()
	}
	if b.model != nil {
		b.model.stop()
	}
	os.RemoveAll(b.dir)
}

func run(nSessions, steps, modelMS, reconnectAfter int, modelInProcess bool, database string, replicas int) error {
	if replicas > 1 && database == "" {
		return fmt.Errorf("-replicas needs a shared database: add -postgres (or -database postgres://...)")
	}
	cfg := servertest.Config{Script: script(steps, modelMS), NoPermissions: true, Database: database}
	var model *child
	if !modelInProcess {
		var url string
		var err error
		if model, url, err = startChild("-child", "model", "-steps", fmt.Sprint(steps), "-model-ms", fmt.Sprint(modelMS)); err != nil {
			return err
		}
		cfg.ModelURL = url
	}
	files := map[string]string{}
	for i := range steps {
		files[noteFile(i)] = fmt.Sprintf("hello from note %d\n", i)
	}
	lat := &latencies{d: map[sessionSeq]time.Duration{}}
	opts := server.Options{OnEventWritten: lat.add}
	if replicas > 1 {
		opts = server.Options{ReplicaID: "bench-a"} // runs the turns; the others time the SSE writes
	}
	b, err := startStack(cfg, opts, files)
	if err != nil {
		if model != nil {
			model.stop()
		}
		return err
	}
	b.model = model
	defer b.close()
	if replicas > 1 {
		others, err := startReplicas(cfg, files, replicas-1, lat)
		if err != nil {
			return err
		}
		defer func() {
			for _, o := range others {
				o.close()
			}
		}()
		b.client.streamBase = others[0].client.base
		fmt.Printf("replicas            %d in this process (prompts to %s, SSE from %s), one PostgreSQL\n", replicas, b.client.base, b.client.streamBase)
	}

	load0 := loadAvg()
	probe := startFloor()
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]result, nSessions)
	for i := range nSessions {
		wg.Add(1)
		// With a model that takes time, sessions started together would
		// step in lock-step, a burst of 200 steps at once every call;
		// users do not. Their starts are spread over one call's time.
		delay := time.Duration(modelMS) * time.Millisecond * time.Duration(i) / time.Duration(nSessions)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			results[i] = b.client.session(b.ws, reconnectAfter)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	late := probe.end()
	load1 := loadAvg()
	if err := b.shutdown(); err != nil {
		return err
	}

	var total, lost, dup, disordered, failed, resumed, cut int
	all := make([]time.Duration, 0, len(lat.d))
	byType := map[event.Type][]time.Duration{}
	for _, r := range results {
		total += r.events
		lost += r.lost
		dup += r.dup
		resumed += r.resumed
		cut += r.cut
		disordered += r.disordered
		if r.err != nil {
			failed++
			if failed <= 3 {
				fmt.Fprintln(os.Stderr, "session failed:", r.err)
			}
		}
		for seq, t := range r.types {
			if d, ok := lat.d[sessionSeq{r.id, seq}]; ok {
				byType[t] = append(byType[t], d)
				all = append(all, d)
			}
		}
	}
	slices.Sort(all)
	fmt.Printf("sessions            %d (%d steps per turn, model answers after %d ms, %d failed)\n", nSessions, steps, modelMS, failed)
	fmt.Printf("events delivered    %d in %s (load average %s -> %s)\n", total, elapsed.Round(time.Millisecond), load0, load1)
	fmt.Printf("events per second   %.0f\n", float64(total)/elapsed.Seconds())
	printLatencies(all, late, "event created -> flushed to its SSE client", "in this process during the run", byType)
	fmt.Printf("peak RSS (VmHWM)    %s (server process; the model server runs in a child: %v)\n", procStatus("VmHWM"), !modelInProcess)
	fmt.Printf("SSE resumes         %d (Last-Event-ID mid-turn, by the client), %d after the server cut a stream\n", resumed, cut)
	fmt.Printf("lost events         %d\n", lost)
	fmt.Printf("duplicate events    %d\n", dup)
	fmt.Printf("out of order        %d\n", disordered)
	if lost > 0 || dup > 0 || disordered > 0 || failed > 0 {
		return fmt.Errorf("%d lost, %d duplicated, %d out of order, %d sessions failed", lost, dup, disordered, failed)
	}
	return nil
}

// procStatus is a field of /proc/self/status ("VmHWM", "VmRSS").
func procStatus(field string) string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAvg is the machine's 1-minute load average: the figures mean little
// without it on a shared machine.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
