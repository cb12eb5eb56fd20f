package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// ReplicaRegistry is where replicas of `tandem serve` sharing a database
// leave their heartbeats (store.Replicas).
type ReplicaRegistry = store.Replicas

// Heartbeat timing: a replica writes its state every heartbeatEvery; one
// not seen for replicaStaleAfter is listed as stale, and one not seen for
// replicaGoneAfter is no longer listed.
const (
	heartbeatEvery    = 2 * time.Second
	replicaStaleAfter = 10 * time.Second
	replicaGoneAfter  = 10 * time.Minute
)

// replicaState is this process as a replica.
type replicaState struct {
	id      string
	started time.Time
	// beat is when the last heartbeat was stored (unix nanos; 0: never):
	// /readyz answers 503 while the database is out of reach.
	beat atomic.Int64
	// workspaces is what the last heartbeat listed; refreshing: a
	// refresh of it runs (beatWorkspaces).
	workspaces atomic.Pointer[[]string]
	refreshing atomic.Bool
}

// NewReplicaID names a replica: the host, the pid and a random suffix
// (a restarted process is a new replica).
func NewReplicaID() string {
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return host + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// ReplicaID is this server's replica id (logs and GET /api/replicas).
func (s *Server) ReplicaID() string { return s.replica.id }

// heartbeats stores this replica's state until the server stops, then
// forgets it (a clean stop is not a death). A beat starts every
// heartbeatEvery without waiting for the one before (up to
// maxBeatsInFlight at once), each with beatTimeout, longer than the
// interval: under load a slow beat is late rather than lost, and a stuck
// one does not silence the replica (bench/serve -procs: beats timed out
// at 2 s and live replicas were taken for dead).
func (s *Server) heartbeats() {
	if s.opts.Replicas == nil {
		return
	}
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	var inFlight atomic.Int32
	var wg sync.WaitGroup
	for {
		if inFlight.Load() < maxBeatsInFlight {
			inFlight.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer inFlight.Add(-1)
				s.beat()
			}()
		}
		select {
		case <-s.base.Done():
			wg.Wait() // none may store the replica again after it is dropped
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.opts.Replicas.DropReplica(ctx, s.replica.id); err != nil {
				s.log.Warn("forget this replica's heartbeat", "err", err)
			}
			return
		case <-tick.C:
		}
	}
}

// beatTimeout bounds one heartbeat's write: past the interval, inside
// the time after which the others take this replica for dead.
const beatTimeout = 3 * heartbeatEvery

// maxBeatsInFlight: a beat stuck on a broken connection, and the next.
const maxBeatsInFlight = 2

func (s *Server) beat() {
	ctx, cancel := context.WithTimeout(s.base, beatTimeout)
	defer cancel()
	s.mu.Lock()
	addr := s.addr
	s.mu.Unlock()
	err := s.opts.Replicas.Heartbeat(ctx, store.Replica{ID: s.replica.id, Addr: addr, Workspaces: s.beatWorkspaces(ctx),
		Running: s.runningTurns(), Started: s.replica.started})
	if err != nil {
		if s.base.Err() == nil {
			s.log.Warn("heartbeat not stored", "err", err)
		}
		return
	}
	s.replica.beat.Store(time.Now().UnixNano())
}

// beatWorkspaces are the folders a heartbeat lists: read once, then
// refreshed beside the beats, so a beat never waits on the store's pool
// (busy with the sessions' writes under load) for them.
func (s *Server) beatWorkspaces(ctx context.Context) []string {
	ws := s.replica.workspaces.Load()
	if ws == nil {
		paths := s.workspacePaths(ctx)
		s.replica.workspaces.Store(&paths)
		return paths
	}
	if s.replica.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer s.replica.refreshing.Store(false)
			ctx, cancel := context.WithTimeout(s.base, 10*time.Second)
			defer cancel()
			if ws, err := s.workspaces.ListWorkspaces(ctx); err == nil {
				paths := existingPaths(ws)
				s.replica.workspaces.Store(&paths)
			}
		}()
	}
	return *ws
}

// workspacePaths are the folders this replica can reach.
func (s *Server) workspacePaths(ctx context.Context) []string {
	ws, err := s.workspaces.ListWorkspaces(ctx)
	if err != nil {
		return nil
	}
	return existingPaths(ws)
}

// existingPaths are the workspaces' folders that exist here.
func existingPaths(ws []store.Workspace) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if fi, err := os.Stat(w.Path); err == nil && fi.IsDir() {
			out = append(out, w.Path)
		}
	}
	return out
}

// runningTurns counts the sessions running a turn here.
func (s *Server) runningTurns() int {
	s.mu.Lock()
	sts := make([]*sessState, 0, len(s.sessions))
	for _, st := range s.sessions {
		sts = append(sts, st)
	}
	s.mu.Unlock()
	n := 0
	for _, st := range sts {
		if st.snapshot().running {
			n++
		}
	}
	return n
}

type replicaJSON struct {
	ID         string    `json:"id"`
	Addr       string    `json:"addr"`
	Workspaces []string  `json:"workspaces"`
	Running    int       `json:"running_turns"`
	Started    time.Time `json:"started_at"`
	Seen       time.Time `json:"seen_at"`
	Health     string    `json:"health"` // "up", "stale"
	Self       bool      `json:"self,omitempty"`
}

// listReplicas is GET /api/replicas.
func (s *Server) listReplicas(w http.ResponseWriter, r *http.Request) {
	if s.opts.Replicas == nil {
		writeError(w, errf(http.StatusNotImplemented, "not_available", "this server keeps no replica registry"))
		return
	}
	now := time.Now()
	rs, err := s.opts.Replicas.ListReplicas(r.Context(), now.Add(-replicaGoneAfter))
	if err != nil {
		writeError(w, errf(http.StatusServiceUnavailable, "store_unavailable", "could not read the replicas: %v (check the database connection)", err))
		return
	}
	out := make([]replicaJSON, 0, len(rs))
	for _, rp := range rs {
		h := "up"
		if now.Sub(rp.Seen) > replicaStaleAfter {
			h = "stale"
		}
		out = append(out, replicaJSON{ID: rp.ID, Addr: rp.Addr, Workspaces: rp.Workspaces, Running: rp.Running,
			Started: rp.Started, Seen: rp.Seen, Health: h, Self: rp.ID == s.replica.id})
	}
	writeJSON(w, http.StatusOK, map[string]any{"replicas": out})
}

// probes answers /healthz (the process serves) and /readyz (it should get
// traffic: not draining or shutting down, its turn engine launched (New
// fails otherwise), and its last heartbeat reached the database recently) without a token or host check: load balancers call them, and
// they tell nothing about sessions.
func (s *Server) probes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "replica": s.replica.id})
		case "/readyz":
			code, status := http.StatusOK, "ready"
			switch {
			case s.base.Err() != nil:
				code, status = http.StatusServiceUnavailable, "shutting_down"
			case s.draining.Load():
				// SIGTERM: the running turns finish or are handed over;
				// new traffic belongs to the other replicas.
				code, status = http.StatusServiceUnavailable, "draining"
			case s.opts.Replicas != nil && time.Since(time.Unix(0, s.replica.beat.Load())) > replicaStaleAfter:
				code, status = http.StatusServiceUnavailable, "database_unreachable"
			}
			writeJSON(w, code, map[string]any{"status": status, "replica": s.replica.id})
		default:
			next.ServeHTTP(w, r)
		}
	})
}
