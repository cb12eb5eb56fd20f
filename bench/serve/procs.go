package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

// procsConfig is -replicas N -procs: N `tandem serve` processes on one
// private PostgreSQL, each its own replica (heartbeats, the stored event
// log, turns on the durable queue), as they run in production.
type procsConfig struct {
	replicas, sessions, steps, modelMS, reconnectAfter int
	tandem                                             string // the binary ("" build ./cmd/tandem)
	killAfter                                          int64  // SIGKILL a replica once clients got this many events (0: sessions*steps*2; <0 never)
	basePort                                           int    // the model server listens here, replica i on basePort+1+i
	deadline                                           time.Duration
}

// replicaProc is one `tandem serve` process.
type replicaProc struct {
	i      int
	base   string
	id     string // its replica id (from /healthz)
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	dead   atomic.Bool // killed by the bench
	hwm    int64       // peak RSS (KiB), read just before it was killed or stopped
}

func runProcs(c procsConfig) error {
	if c.replicas < 2 {
		return errors.New("-procs needs -replicas 2 or more")
	}
	tmp, err := os.MkdirTemp("", "tandem-bench-procs-")
	if err != nil {
		return err
	}
	keep := true // the replicas' logs stay for a failed run
	defer func() {
		if keep {
			fmt.Fprintln(os.Stderr, "bench: the replicas' logs are in", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()
	bin := c.tandem
	if bin == "" {
		bin = filepath.Join(tmp, "tandem")
		build := exec.Command("go", "build", "-o", bin, "github.com/tandem-agent/tandem/cmd/tandem")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build tandem: %w", err)
		}
	}
	pgBin, err := pgtest.FindBin()
	if err != nil {
		return err
	}
	pg, err := pgtest.Start(pgBin, pgtest.Options{Durable: true})
	if err != nil {
		return err
	}
	defer pg.Stop()
	dbURL := pg.URL(pgtest.AppUser, pgtest.AppPassword, pgtest.TestDB)
	model, modelURL, err := startChild("-child", "model", "-steps", fmt.Sprint(c.steps), "-model-ms", fmt.Sprint(c.modelMS),
		"-model-addr", fmt.Sprintf("127.0.0.1:%d", c.basePort))
	if err != nil {
		return err
	}
	defer model.stop()
	ws := filepath.Join(tmp, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	for i := range c.steps {
		if err := os.WriteFile(filepath.Join(ws, noteFile(i)), []byte(fmt.Sprintf("hello from note %d\n", i)), 0o644); err != nil {
			return err
		}
	}
	cl := &cluster{http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}}
	defer func() {
		for _, r := range cl.reps {
			r.stop()
		}
	}()
	for i := range c.replicas {
		// One at a time: each migrates the database at start.
		r, err := startReplica(bin, tmp, i, c.basePort+1+i, dbURL, modelURL, ws)
		if err != nil {
			return err
		}
		cl.reps = append(cl.reps, r)
	}
	if err := waitReplicas(cl); err != nil {
		return err
	}
	fmt.Printf("replicas            %d `tandem serve` processes (%s), one private PostgreSQL (pid %d), model server %s\n",
		c.replicas, bin, pg.PID(), modelURL)
	fmt.Printf("clients             each creates its session on replica i, streams from i+2, posts to i+1, resumes mid-turn on i (mod %d)\n", c.replicas)

	killAfter := c.killAfter
	if killAfter == 0 {
		killAfter = int64(c.sessions * c.steps * 2)
	}
	pgMem := watchPG(pg.PID())
	probe := startFloor()
	load0 := loadAvgs()
	start := time.Now()
	kill := make(chan killReport, 1)
	stopKiller := make(chan struct{})
	if killAfter > 0 {
		go func() { kill <- cl.killBusiest(killAfter, stopKiller) }()
	} else {
		kill <- killReport{victim: -1}
	}
	results := make([]replResult, c.sessions)
	var wg sync.WaitGroup
	for i := range c.sessions {
		wg.Add(1)
		delay := time.Duration(c.modelMS) * time.Millisecond * time.Duration(i) / time.Duration(c.sessions)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			results[i] = cl.replSession(i, ws, c.reconnectAfter, c.deadline)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopKiller)
	k := <-kill
	late := probe.end()
	load1 := loadAvgs()
	for _, r := range cl.reps {
		if !r.dead.Load() {
			r.hwm = statusKB(r.cmd.Process.Pid, "VmHWM")
		}
	}
	pgRSS, pgPSS, pgProcs := pgMem.end()
	pgHWM := statusKB(pg.PID(), "VmHWM")

	var total, lost, dup, disordered, failed, resumed, cut int
	var all []time.Duration
	byType := map[event.Type][]time.Duration{}
	var toMoved, toEnd []time.Duration
	early, earlyMoves, again, errs, errSessions, lossy := 0, 0, 0, 0, 0, 0
	movedAfter := map[string]bool{}
	for _, r := range results {
		total += r.tally.events
		lost += r.tally.lost()
		dup += r.tally.dup
		disordered += r.tally.disordered
		resumed += r.resumed
		cut += r.cut
		if r.err != nil {
			if failed++; failed <= 5 {
				fmt.Fprintln(os.Stderr, "session failed:", r.err)
			}
		}
		if n := r.tally.lost(); n > 0 {
			if lossy++; lossy <= 5 {
				fmt.Fprintf(os.Stderr, "session %s: %d events lost, seqs %v of 1..%d; moved at %v; %s\n", r.id, n, r.tally.missing(10), r.tally.last, r.moves, strings.Join(r.trace, ", "))
				miss, err := storedMissing(dbURL, r.id, r.tally.last)
				fmt.Fprintf(os.Stderr, "   seqs missing from the stored log (session_events): %v %v\n", miss, err)
			}
		}
		for _, s := range r.lat {
			all = append(all, s.d)
			byType[s.typ] = append(byType[s.typ], s.d)
		}
		errs += r.errors
		if r.errors > 0 {
			errSessions++
		}
		var after []time.Time // moves after the kill
		for _, m := range r.moves {
			if k.victim < 0 || m.Before(k.at) {
				earlyMoves++ // not moved by the kill: a live replica taken for dead
			} else {
				after = append(after, m)
			}
		}
		if len(r.moves) > len(after) {
			early++
		}
		if len(after) > 0 {
			movedAfter[r.id] = true
			if len(after) > 1 {
				again++
			}
			toMoved = append(toMoved, after[0].Sub(k.at))
			if !r.ended.IsZero() {
				toEnd = append(toEnd, r.ended.Sub(k.at))
			}
		}
	}
	slices.Sort(all)
	slices.Sort(toMoved)
	slices.Sort(toEnd)
	fmt.Printf("sessions            %d (%d steps per turn, model answers after %d ms, %d failed)\n", c.sessions, c.steps, c.modelMS, failed)
	fmt.Printf("events delivered    %d in %s (load average 1/5/15 min: %s at start, %s at the end)\n", total, elapsed.Round(time.Millisecond), load0, load1)
	fmt.Printf("events per second   %.0f\n", float64(total)/elapsed.Seconds())
	printLatencies(all, late, "event created on the replica running the turn -> read by the client from another replica's stream", "in the clients' process", byType)
	if k.victim >= 0 {
		fmt.Printf("SIGKILL             replica %d (%s) at %s (%s UTC), after %d events, running %d turns (running per replica: %v; load average %s)\n",
			k.victim, cl.reps[k.victim].id, k.at.Sub(start).Round(time.Millisecond), k.at.UTC().Format("15:04:05.000"), k.events, k.running[k.victim], k.running, k.load)
		listed := map[string]bool{}
		for _, id := range k.turns {
			listed[id] = true
		}
		var listedMoved, listedDone, unlisted int
		for _, r := range results {
			switch {
			case listed[r.id] && movedAfter[r.id]:
				listedMoved++
				if !r.ended.IsZero() {
					listedDone++
				}
			case movedAfter[r.id]:
				unlisted++
			}
		}
		fmt.Printf("turns moved         %d after the kill (a turn_moved status on their stream): %d of the %d the victim listed running (%d of those completed), %d others; %d moved more than once\n",
			len(toMoved), listedMoved, len(k.turns), listedDone, unlisted, again)
		fmt.Printf("kill -> turn_moved  p50 %s, p99 %s, max %s (the first turn_moved after the kill, created on the replica taking the turn over)\n",
			pct(toMoved, 0.5).Round(time.Millisecond), pct(toMoved, 0.99).Round(time.Millisecond), pct(toMoved, 1).Round(time.Millisecond))
		fmt.Printf("kill -> turn done   p50 %s, p99 %s, max %s (%d of the moved turns completed)\n",
			pct(toEnd, 0.5).Round(time.Millisecond), pct(toEnd, 0.99).Round(time.Millisecond), pct(toEnd, 1).Round(time.Millisecond), len(toEnd))
	} else if k.err != nil {
		fmt.Printf("SIGKILL             none: %v\n", k.err)
	}
	if early > 0 {
		fmt.Printf("moved before kill   %d turns, %d turn_moved events (a live replica's turns taken over: its heartbeat looked stale)\n", early, earlyMoves)
	}
	for _, r := range cl.reps {
		state := "stopped at the end"
		if r.dead.Load() {
			state = "killed"
		}
		fmt.Printf("peak RSS replica %d  %s (VmHWM, %s)\n", r.i, kbMiB(r.hwm), state)
	}
	fmt.Printf("PostgreSQL memory   peak PSS %s, peak summed RSS %s over up to %d processes; postmaster VmHWM %s\n", kbMiB(pgPSS), kbMiB(pgRSS), pgProcs, kbMiB(pgHWM))
	fmt.Printf("SSE resumes         %d (Last-Event-ID mid-turn, on another replica), %d after a stream ended early\n", resumed, cut)
	fmt.Printf("error events        %d in %d sessions\n", errs, errSessions)
	fmt.Printf("lost events         %d\n", lost)
	fmt.Printf("duplicate events    %d\n", dup)
	fmt.Printf("out of order        %d\n", disordered)
	if lost > 0 || dup > 0 || disordered > 0 || failed > 0 {
		return fmt.Errorf("%d lost, %d duplicated, %d out of order, %d sessions failed", lost, dup, disordered, failed)
	}
	if k.victim >= 0 && len(toEnd) != len(toMoved) {
		return fmt.Errorf("%d turns moved, %d completed", len(toMoved), len(toEnd))
	}
	if early > 0 {
		return fmt.Errorf("%d turns moved off a live replica", early)
	}
	keep = false
	return nil
}

// startReplica starts `tandem serve` number i on port, with a home of its
// own (as on its own host), the shared database, the scripted model, and
// the e2e tests' settings: trust mode, the workspace registered.
func startReplica(bin, tmp string, i, port int, dbURL, modelURL, ws string) (*replicaProc, error) {
	home := filepath.Join(tmp, fmt.Sprintf("replica-%d", i))
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	r := &replicaProc{i: i, base: fmt.Sprintf("http://127.0.0.1:%d", port), log: filepath.Join(tmp, fmt.Sprintf("replica-%d.log", i)), exited: make(chan struct{})}
	logf, err := os.Create(r.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	r.cmd = exec.Command(bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--workspace", ws, "--permission-mode", "trust")
	r.cmd.Dir = ws
	r.cmd.Env = append(os.Environ(),
		"TANDEM_HOME="+home, "HOME="+home,
		"TANDEM_DATABASE_URL="+dbURL, // not on the command line
		"TANDEM_TOKEN="+token,
		"ANTHROPIC_BASE_URL="+modelURL, "ANTHROPIC_API_KEY=bench-key",
		"OPENAI_BASE_URL="+modelURL+"/v1", "OPENAI_API_KEY=bench-key",
		"TANDEM_MODEL=", "XDG_CONFIG_HOME=", "XDG_DATA_HOME=")
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	r.cmd.SysProcAttr = diesWithBench()
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start replica %d: %w", i, err)
	}
	go func() { r.cmd.Wait(); close(r.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(r.base + "/healthz")
		if err == nil {
			var h struct{ Replica string }
			json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			r.id = h.Replica
			return r, nil
		}
		select {
		case <-r.exited:
			log, _ := os.ReadFile(r.log)
			return nil, fmt.Errorf("replica %d exited at start:\n%s", i, log)
		default:
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, fmt.Errorf("replica %d not listening after 60 s (log: %s)", i, r.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitReplicas waits until the first replica lists every replica up:
// each has stored a heartbeat, so a killed one is noticed.
func waitReplicas(cl *cluster) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		rs, err := cl.replicaList()
		up := 0
		for _, r := range rs {
			if r.Health == "up" {
				up++
			}
		}
		if err == nil && up == len(cl.reps) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d replicas listed up after 30 s (%v)", up, len(cl.reps), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// storedMissing reads the seqs of a session's events stored in the
// database and returns those missing from 1 to last: events no replica
// can deliver, as they were never stored.
func storedMissing(dbURL, id string, last int64) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT seq FROM session_events WHERE session_id = $1`, id)
	if err != nil {
		return nil, err
	}
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	tl := newTally()
	for _, s := range seqs {
		tl.add(s, "")
	}
	tl.last = max(tl.last, last)
	return tl.missing(20), nil
}

// runningOn lists the sessions running a turn on replica i.
func (cl *cluster) runningOn(i int) ([]string, error) {
	data, j, err := cl.call(i, "GET", "/api/sessions?limit=100000", nil)
	if err != nil {
		return nil, err
	}
	if j != i {
		return nil, fmt.Errorf("replica %d did not answer", i)
	}
	var out struct {
		Sessions []struct{ ID, Status string }
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range out.Sessions {
		if s.Status == "running" {
			ids = append(ids, s.ID)
		}
	}
	return ids, nil
}

type replicaRow struct {
	ID      string
	Health  string
	Running int `json:"running_turns"`
}

// replicaList is GET /api/replicas, asked of a replica alive.
func (cl *cluster) replicaList() ([]replicaRow, error) {
	data, _, err := cl.call(0, "GET", "/api/replicas", nil)
	if err != nil {
		return nil, err
	}
	var out struct{ Replicas []replicaRow }
	err = json.Unmarshal(data, &out)
	return out.Replicas, err
}

type killReport struct {
	victim  int
	at      time.Time
	events  int64
	running []int    // running turns per replica, as each listed its sessions just before
	turns   []string // the sessions whose turn the victim ran
	load    string
	err     error
}

// killBusiest waits until the clients got after events, then SIGKILLs the
// replica running the most turns (each replica's GET /api/sessions says
// which sessions run a turn there), recording its peak RSS first.
func (cl *cluster) killBusiest(after int64, stop <-chan struct{}) killReport {
	for cl.events.Load() < after {
		select {
		case <-stop:
			return killReport{victim: -1, err: fmt.Errorf("the run ended after %d events, before the %d set for the kill", cl.events.Load(), after)}
		case <-time.After(50 * time.Millisecond):
		}
	}
	k := killReport{victim: -1, running: make([]int, len(cl.reps))}
	var onVictim []string
	for _, r := range cl.reps {
		ids, err := cl.runningOn(r.i)
		if err != nil {
			return killReport{victim: -1, err: err}
		}
		if k.running[r.i] = len(ids); k.victim < 0 || len(ids) > k.running[k.victim] {
			k.victim, onVictim = r.i, ids
		}
	}
	k.turns = onVictim
	v := cl.reps[k.victim]
	v.hwm = statusKB(v.cmd.Process.Pid, "VmHWM")
	v.dead.Store(true)
	k.events, k.load = cl.events.Load(), loadAvgs()
	k.at = time.Now()
	if err := v.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		k.err = err
	}
	return k
}

// stop ends a replica: SIGTERM (it drains), SIGKILL after 15 s.
func (r *replicaProc) stop() {
	select {
	case <-r.exited:
		return
	default:
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	select {
	case <-r.exited:
	case <-ctx.Done():
		r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.exited
	}
}
