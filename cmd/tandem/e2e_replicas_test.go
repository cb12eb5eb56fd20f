package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// sseFrom opens a session's SSE stream on c after seq after; every event
// (with its id) arrives on the channel, which closes when the stream ends.
func sseFrom(t *testing.T, c *apiClient, id string, after int64) <-chan event.Event {
	t.Helper()
	return openEvents(t, c.base, c.token, id, strconv.FormatInt(after, 10))
}

// openEvents opens a session's SSE stream on the server at base from
// after lastEventID ("" from the start); its events but keep-alives arrive
// on the channel, which closes when the stream ends.
func openEvents(t *testing.T, base, token, id, lastEventID string) <-chan event.Event {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events on %s: %v %v", base, resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ch := make(chan event.Event, 10000)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e event.Event
				if json.Unmarshal([]byte(data), &e) == nil && e.Type != event.KeepAlive {
					ch <- e
				}
			}
		}
	}()
	return ch
}

// untilResult collects events up to the turn's result (30 s at most).
func untilResult(t *testing.T, ch <-chan event.Event) []event.Event {
	t.Helper()
	var got []event.Event
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended before a result; got %d events", len(got))
			}
			got = append(got, e)
			if e.Type == event.Result {
				return got
			}
		case <-deadline:
			t.Fatalf("no result within 30 s; got %d events", len(got))
		}
	}
}

// inOrderOnce fails unless evs' seqs run from first, one by one.
func inOrderOnce(t *testing.T, where string, evs []event.Event, first int64) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != first+int64(i) {
			t.Fatalf("%s: event %d has seq %d, want %d (lost, repeated or out of order)", where, i, e.Seq, first+int64(i))
		}
	}
}

// Two replicas on one PostgreSQL: a turn run on A streams to a client of
// B as it runs, every event once and in order, and a client resuming with
// Last-Event-ID mid-turn on B gets the rest from the stored log.
func TestE2EReplicasStreamFromTheStoredLog(t *testing.T) {
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.ThinkingStep("think it over", "hello from replica A")}})
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)
	a := startServe(t, x, "--permission-mode", "trust")
	b := startServe(t, x, "--permission-mode", "trust")
	sess := a.call("POST", "/api/sessions", map[string]string{"cwd": x.Work})
	id := fmt.Sprint(sess["id"])
	last, _ := strconv.ParseInt(fmt.Sprint(b.call("GET", "/api/sessions/"+id, nil)["last_seq"]), 10, 64)
	fromB := sseFrom(t, b, id, last)
	a.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "hi"})
	got := untilResult(t, fromB)
	inOrderOnce(t, "live on B", got, last+1)
	var text strings.Builder
	for _, e := range got {
		if e.Type == event.Text {
			text.WriteString(e.Text)
		}
	}
	if !strings.Contains(text.String(), "hello from replica A") {
		t.Fatalf("B's client saw text %q", text.String())
	}
	// Resume mid-turn on B, and from the start on A.
	mid := got[len(got)/2].Seq
	rest := untilResult(t, sseFrom(t, b, id, mid))
	inOrderOnce(t, "resumed on B", rest, mid+1)
	again := untilResult(t, sseFrom(t, a, id, last))
	inOrderOnce(t, "resumed on A", again, last+1)
	if len(again) != len(got) {
		t.Fatalf("A replayed %d events, B streamed %d", len(again), len(got))
	}
	checkReplicas(t, b, x.Work, 2)
	for _, probe := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(a.base + probe) // no token: load balancers call them
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", probe, resp, err)
		}
		resp.Body.Close()
	}
}

// checkReplicas waits (10 s at most) until c lists n replicas, all up and
// reaching work, one of them itself.
func checkReplicas(t *testing.T, c *apiClient, work string, n int) {
	t.Helper()
	var last any
	waitFor(t, fmt.Sprintf("%d replicas listed", n), 10*time.Second, func() bool {
		got := c.call("GET", "/api/replicas", nil)
		last = got
		rs, _ := got["replicas"].([]any)
		if len(rs) != n {
			return false
		}
		self := 0
		for _, r := range rs {
			m := r.(map[string]any)
			ws, _ := m["workspaces"].([]any)
			if m["health"] != "up" || len(ws) == 0 || fmt.Sprint(ws[0]) != work {
				return false
			}
			if m["self"] == true {
				self++
			}
		}
		return self == 1
	})
	_ = last
}
