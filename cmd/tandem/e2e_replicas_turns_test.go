package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// Issue 27's test: three replicas on one PostgreSQL; a session made on A,
// streamed from B, its prompt posted to C; the turn's permission question
// answered on a replica that does not run the turn (a second answer is
// 409); the replica running the turn SIGKILLed mid-step; the turn
// completes on another replica, and a client reconnecting with
// Last-Event-ID to a third replica gets every event once, in order.
func TestE2EReplicasTurnMovesOnKill(t *testing.T) {
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "touch approved.txt"})),
		// The kill lands while this step's answer is awaited; the replica
		// that resumes the turn asks again and gets it at once.
		scripted.TextStep("finished after the move").WithFault(scripted.Fault{FirstByteDelayMS: 120000, Times: 1}),
	}})
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)
	reps := []*apiClient{
		startServe(t, x, "--permission-mode", "default"),
		startServe(t, x, "--permission-mode", "default"),
		startServe(t, x, "--permission-mode", "default"),
	}
	a, b, c := reps[0], reps[1], reps[2]
	sess := a.call("POST", "/api/sessions", map[string]string{"cwd": x.Work})
	id := fmt.Sprint(sess["id"])
	last := int64(0)
	fmt.Sscan(fmt.Sprint(b.call("GET", "/api/sessions/"+id, nil)["last_seq"]), &last)
	fromB := sseFrom(t, b, id, last)
	c.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "make the file"})

	var seen []event.Event
	next := func(what string, match func(event.Event) bool) event.Event {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			select {
			case e, ok := <-fromB:
				if !ok {
					t.Fatalf("B's stream ended waiting for %s; got %d events", what, len(seen))
				}
				seen = append(seen, e)
				if match(e) {
					return e
				}
			case <-deadline:
				t.Fatalf("no %s within 60 s; got %d events", what, len(seen))
			}
		}
	}
	q := next("the permission question", func(e event.Event) bool { return e.Type == event.PermissionRequest })
	runner := turnRunner(t, reps)
	other := (runner + 1) % 3
	path := "/api/sessions/" + id + "/permissions/" + q.RequestID
	if code, body := reps[other].do("POST", path, map[string]string{"decision": "allow_once"}); code != 200 {
		t.Fatalf("answer on replica %d (turn on %d): %d %v", other, runner, code, body)
	}
	if code, body := reps[(runner+2)%3].do("POST", path, map[string]string{"decision": "deny"}); code != 409 {
		t.Fatalf("second answer: %d %v, want 409", code, body)
	}
	next("the approved call's result", func(e event.Event) bool { return e.Type == event.ToolResult })
	// The next step's request is out (its first byte is two minutes away).
	time.Sleep(time.Second)
	reps[runner].p.Signal(syscall.SIGKILL)
	killed := time.Now()
	// Reconnect to a replica that neither ran the turn nor served B's
	// stream (when B ran it, any other).
	third := 3 - runner - 1
	if runner == 1 {
		third = 2
	}
	if third == runner {
		third = (runner + 1) % 3
	}
	drain := time.After(2 * time.Second)
	for draining := true; draining; {
		select {
		case e, ok := <-fromB:
			if !ok {
				draining = false
				break
			}
			seen = append(seen, e)
		case <-drain:
			draining = false
		}
	}
	inOrderOnce(t, "before the kill, on B", seen, last+1)
	resumeAt := seen[len(seen)-1].Seq
	rest := untilResultWithin(t, sseFrom(t, reps[third], id, resumeAt), 90*time.Second)
	inOrderOnce(t, "after the kill, on the third replica", rest, resumeAt+1)
	moved := -1
	for i, e := range rest {
		if e.Type == event.Status && e.Subtype == "turn_moved" {
			moved = i
		}
	}
	if moved < 0 {
		t.Fatalf("no turn_moved status after the kill; got %+v", rest)
	}
	res := rest[len(rest)-1]
	if res.IsError || !strings.Contains(res.Result, "finished after the move") {
		t.Fatalf("the moved turn's result: %+v", res)
	}
	took := time.Since(killed)
	t.Logf("turn completed on another replica %v after the SIGKILL (load: see uptime)", took)
	if took > 60*time.Second {
		t.Errorf("the turn took %v to complete after the kill", took)
	}
}

// untilResultWithin is untilResult with its own deadline.
func untilResultWithin(t *testing.T, ch <-chan event.Event, d time.Duration) []event.Event {
	t.Helper()
	var got []event.Event
	deadline := time.After(d)
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
			t.Fatalf("no result within %v; got %d events: %+v", d, len(got), got)
		}
	}
}

// turnRunner waits (20 s at most) until a replica's heartbeat says it
// runs a turn and returns its index in reps (every replica shows the
// session running, whichever runs it).
func turnRunner(t *testing.T, reps []*apiClient) int {
	t.Helper()
	runner := -1
	waitFor(t, "a replica to say it runs the turn", 20*time.Second, func() bool {
		rs, _ := reps[0].call("GET", "/api/replicas", nil)["replicas"].([]any)
		for _, r := range rs {
			m := r.(map[string]any)
			if n, _ := m["running_turns"].(float64); n < 1 {
				continue
			}
			for i, c := range reps {
				if c.base == "http://"+fmt.Sprint(m["addr"]) {
					runner = i
					return true
				}
			}
		}
		return false
	})
	return runner
}

// Two replicas on one PostgreSQL, --drain-timeout 1s: the replica
// running a long turn (its model call hangs) gets SIGTERM; it exits
// cleanly after handing the turn over (it says so: the turn went back on
// its queue, not waiting for the others to find its heartbeat gone), and
// the other replica completes it; a client reading from
// the other replica gets every event once, in order, with one result
// (the interrupted end on the draining replica is not shown), and a
// client resuming there with Last-Event-ID mid-turn gets the rest.
func TestE2EReplicasSIGTERMHandsOver(t *testing.T) {
	dbURL := pgServer.Database(t)
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("finished on the other replica").WithFault(scripted.Fault{FirstByteDelayMS: 120000, Times: 1}),
	}})
	x.Env = append(x.Env, "TANDEM_DATABASE_URL="+dbURL)
	args := []string{"--permission-mode", "trust", "--drain-timeout", "1s"}
	reps := []*apiClient{startServe(t, x, args...), startServe(t, x, args...)}
	sess := reps[0].call("POST", "/api/sessions", map[string]string{"cwd": x.Work})
	id := fmt.Sprint(sess["id"])
	last := int64(0)
	fmt.Sscan(fmt.Sprint(reps[1].call("GET", "/api/sessions/"+id, nil)["last_seq"]), &last)
	reps[1].call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "take your time"})
	runner := turnRunner(t, reps)
	other := reps[1-runner]
	fromOther := sseFrom(t, other, id, last)
	var seen []event.Event
	for len(seen) == 0 || seen[len(seen)-1].Subtype != "user_message" {
		select {
		case e, ok := <-fromOther:
			if !ok {
				t.Fatal("the other replica's stream ended before the turn began")
			}
			seen = append(seen, e)
		case <-time.After(30 * time.Second):
			t.Fatalf("no user_message on the other replica; got %+v", seen)
		}
	}
	reps[runner].p.Signal(syscall.SIGTERM)
	termed := time.Now()
	if res := reps[runner].p.Wait(30 * time.Second); res.Code != 0 {
		t.Fatalf("the drained replica exited with %d: %s", res.Code, reps[runner].p.Stderr())
	}
	if !strings.Contains(reps[runner].p.Stderr(), "handed turns over") {
		t.Errorf("the drained replica did not say it handed the turn over: %s", reps[runner].p.Stderr())
	}
	rest := untilResultWithin(t, fromOther, 90*time.Second)
	all := append(seen, rest...)
	inOrderOnce(t, "on the other replica", all, last+1)
	results, moved := 0, false
	for _, e := range all {
		if e.Type == event.Result {
			results++
		}
		if e.Type == event.Status && e.Subtype == "turn_moved" && !moved {
			moved = true
			t.Logf("the other replica resumed the turn %v after the SIGTERM (--drain-timeout 1s; load: see uptime)", e.Time.Sub(termed))
		}
	}
	res := all[len(all)-1]
	if results != 1 || !moved || res.IsError || !strings.Contains(res.Result, "finished on the other replica") {
		t.Fatalf("after the hand-over: %d results, turn_moved %v, last %+v; events %+v", results, moved, res, all)
	}
	mid := all[len(all)/2].Seq
	again := untilResultWithin(t, sseFrom(t, other, id, mid), 30*time.Second)
	inOrderOnce(t, "resumed on the other replica", again, mid+1)
	if st := other.call("GET", "/api/sessions/"+id, nil); st["status"] != "idle" {
		t.Errorf("the session after the moved turn: %v", st["status"])
	}
}
