package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/server"
)

// cluster is the -procs clients' view of the replicas: their addresses,
// and which of them the bench killed (a client stops asking a replica it
// knows dead, as a load balancer's health check would make it).
type cluster struct {
	reps   []*replicaProc
	http   *http.Client
	events atomic.Int64 // events received by every client so far
}

// pick is the first replica alive from index i on, other than avoid
// (-1: none) while another is alive.
func (cl *cluster) pick(i, avoid int) int {
	n := len(cl.reps)
	fallback := -1
	for k := range n {
		j := (i + k) % n
		if cl.reps[j].dead.Load() {
			continue
		}
		if j != avoid {
			return j
		}
		fallback = j
	}
	return fallback
}

// dialFailed reports an error from a request that never reached a server
// (connection refused: the replica is gone), which is safe to send again
// elsewhere.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// call sends a request to replica i; on a dial failure it tries the next
// replica alive. It returns the body and the replica that answered.
func (cl *cluster) call(i int, method, path string, body any) ([]byte, int, error) {
	var last error
	for range len(cl.reps) {
		j := cl.pick(i, -1)
		if j < 0 {
			return nil, -1, errors.New("no replica alive")
		}
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, cl.reps[j].base+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := cl.http.Do(req)
		if err != nil {
			if dialFailed(err) {
				last, i = err, j+1
				continue
			}
			return nil, j, fmt.Errorf("%s %s on replica %d: %w", method, path, j, err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			return nil, j, fmt.Errorf("%s %s on replica %d: %d %s", method, path, j, resp.StatusCode, buf.String())
		}
		return buf.Bytes(), j, nil
	}
	return nil, -1, last
}

// stream opens a session's SSE stream after seq on replica i.
func (cl *cluster) stream(ctx context.Context, i int, id string, after int64) (io.ReadCloser, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", cl.reps[i].base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Last-Event-ID", fmt.Sprint(after))
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET events of %s on replica %d: %s", id, i, resp.Status)
	}
	return resp.Body, nil
}

// replSample is one live event's latency: created on the replica running
// the turn (its ts) to read by the client from another replica's stream.
type replSample struct {
	typ event.Type
	d   time.Duration
}

type replResult struct {
	id           string
	tally        *tally
	lat          []replSample
	moves        []time.Time // ts of each turn_moved status (none: the turn did not move)
	errors       int         // error events (a turn's step that failed)
	ended        time.Time   // ts of the turn's done event
	resumed, cut int
	trace        []string // where the client went: for the report of a session that lost events
	err          error
}

// replSession is one -procs client: it creates the session on replica i,
// reads its stream on i+2, posts the prompt to i+1, and after
// reconnectAfter events resumes with Last-Event-ID on i (so the stream is
// read from three replicas in turn, never the one the prompt went to
// while another is alive). A stream that ends early (its replica killed)
// is resumed on the next replica alive.
func (cl *cluster) replSession(i int, ws string, reconnectAfter int, deadline time.Duration) (r replResult) {
	r.tally = newTally()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	data, _, err := cl.call(i, "POST", "/api/sessions", map[string]string{"cwd": ws})
	if err != nil {
		r.err = err
		return r
	}
	var s struct{ ID string }
	if err := json.Unmarshal(data, &s); err != nil || s.ID == "" {
		r.err = fmt.Errorf("POST /api/sessions answered %q", data)
		return r
	}
	r.id = s.ID
	post := cl.pick(i+1, -1)
	on := cl.pick(i+2, post)
	body, err := cl.stream(ctx, on, r.id, 0)
	if err != nil {
		r.err = err
		return r
	}
	defer func() { body.Close() }()
	opened := time.Now()
	r.trace = append(r.trace, fmt.Sprintf("stream on %d from 0", on))
	if _, post, err = cl.call(post, "POST", "/api/sessions/"+r.id+"/messages", map[string]string{"text": "go"}); err != nil {
		r.err = err
		return r
	}
	r.trace = append(r.trace, fmt.Sprintf("posted to %d", post))
	// reopen resumes after the last seq on replica from (or the next
	// alive), retrying while replicas restart or a kill is noticed.
	reopen := func(from int) error {
		body.Close()
		for {
			on = cl.pick(from, post)
			if on < 0 {
				return errors.New("no replica alive")
			}
			b, err := cl.stream(ctx, on, r.id, r.tally.last)
			if err == nil {
				body, opened = b, time.Now()
				r.trace = append(r.trace, fmt.Sprintf("stream on %d from %d", on, r.tally.last))
				return nil
			}
			if ctx.Err() != nil {
				return fmt.Errorf("session %s: resume after %d: %w", r.id, r.tally.last, err)
			}
			from = on + 1
			time.Sleep(100 * time.Millisecond)
		}
	}
	sc := newScanner(body)
	for {
		if !sc.Scan() {
			if ctx.Err() != nil {
				r.err = fmt.Errorf("session %s: no done event within %s (last seq %d)", r.id, deadline, r.tally.last)
				return r
			}
			if r.cut++; r.cut > 20 {
				r.err = fmt.Errorf("session %s: the stream ended before done %d times (%v)", r.id, r.cut, sc.Err())
				return r
			}
			if r.err = reopen(on + 1); r.err != nil {
				return r
			}
			sc = newScanner(body)
			continue
		}
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		got := time.Now()
		var ev struct {
			Type    event.Type
			Subtype string
			Seq     int64
			TS      time.Time `json:"ts"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			r.err = err
			return r
		}
		if ev.Type == event.KeepAlive {
			continue
		}
		cl.events.Add(1)
		// Live only: an event created before this connection opened is a
		// replay from the stored log, not a delivery.
		if r.tally.add(ev.Seq, ev.Type) && !ev.TS.Before(opened) {
			r.lat = append(r.lat, replSample{ev.Type, got.Sub(ev.TS)})
		}
		if ev.Type == event.Status && ev.Subtype == server.SubtypeTurnMoved {
			r.moves = append(r.moves, ev.TS)
		}
		if ev.Type == event.Error {
			r.errors++
		}
		if ev.Type == event.Done {
			r.ended = ev.TS
			return r
		}
		if reconnectAfter > 0 && r.tally.events == reconnectAfter {
			if r.err = reopen(i); r.err != nil {
				return r
			}
			r.resumed++
			sc = newScanner(body)
		}
	}
}
