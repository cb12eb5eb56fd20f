package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// checkAlternating fails unless the stored conversation alternates user and
// assistant messages and pairs every tool_use with exactly one result.
func checkAlternating(t *testing.T, msgs []message.Message) {
	t.Helper()
	results := map[string]int{}
	uses := map[string]bool{}
	for i, m := range msgs {
		want := message.User
		if i%2 == 1 {
			want = message.Assistant
		}
		if m.Role != want {
			t.Fatalf("message %d is %s, want %s: interleaved turns\n%+v", i, m.Role, want, msgs)
		}
		for _, b := range m.Content {
			switch b.Type {
			case message.ToolUse:
				uses[b.ID] = true
			case message.ToolResult:
				results[b.ToolUseID]++
			}
		}
	}
	for id := range uses {
		if results[id] != 1 {
			t.Errorf("tool_use %s has %d results", id, results[id])
		}
	}
}

// Two `tandem run --continue` at once on one folder: the second fails fast
// with a busy error (and a result line), the first finishes, and the
// session is stored whole with unrepeated event numbers.
func TestE2ELeaseTwoContinuesAtOnce(t *testing.T) {
	// Not parallel: a second process must start and reach the session
	// within a few seconds of a slow scripted step (the window the lease
	// is held); tests running beside it on a small machine close it.
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("first"),
		scripted.TextStep("slow answer").WithFault(scripted.Fault{FirstByteDelayMS: 4000, Times: 1}),
		scripted.TextStep("third"),
	}})
	first := x.RunStream("start")
	mustSucceed(t, first)
	id := first.Result().SessionID

	a := x.Start(streamArgs("slow one", "--continue")...)
	a.WaitEvent("status", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	start := time.Now()
	b := x.RunStream("second at once", "--continue")
	if b.Code == 0 {
		t.Fatalf("second run at once succeeded:\n%s", b.Stdout)
	}
	select { // it gave up while the first turn still ran, not after it
	case <-a.exited:
		t.Errorf("the busy run gave up only after the first turn ended (%v)", time.Since(start))
	default:
	}
	res := b.Result()
	want := fmt.Sprintf("session %s is busy (running in pid %d", id, a.cmd.Process.Pid)
	if !res.IsError || !strings.Contains(res.Error, want) || !strings.Contains(b.Stderr, want) {
		t.Fatalf("busy run: result %+v\nstderr: %s\nwant %q", res, b.Stderr, want)
	}
	ra := a.Wait(30 * time.Second)
	mustSucceed(t, ra)
	if ra.Result().Result != "slow answer" {
		t.Errorf("first run result %+v", ra.Result())
	}

	third := x.RunStream("after", "--continue")
	mustSucceed(t, third)
	seen := map[int64]bool{}
	for _, r := range []runResult{first, ra, third} {
		for _, e := range r.Events {
			if seen[e.Seq] {
				t.Errorf("seq %d repeated (%s)", e.Seq, e.Type)
			}
			seen[e.Seq] = true
		}
	}
	ex, _ := x.Export(id)
	if len(ex.Messages) != 6 {
		t.Errorf("stored %d messages, want 6", len(ex.Messages))
	}
	checkAlternating(t, ex.Messages)
}

// A runner killed with SIGKILL leaves its lease behind; the next run on this
// host sees the pid is gone and takes the session over at once.
func TestE2ELeaseDeadHolderTakenOver(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("never seen").WithFault(scripted.Fault{FirstByteDelayMS: 120000, Times: 1}),
		scripted.TextStep("taken over"),
	}})
	a := x.Start(streamArgs("hang")...)
	st := a.WaitEvent("status", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	waitFor(t, "the model call", 30*time.Second, func() bool { return len(x.srv.MainRequests()) >= 1 })
	a.Signal(syscall.SIGKILL)
	a.Wait(10 * time.Second)
	start := time.Now()
	r := x.RunStream("again", "--resume", st.SessionID)
	mustSucceed(t, r)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("taking over a dead holder's lease took %v", d)
	}
}

// `tandem serve` running a session's turn and `tandem run --resume` of the
// same session: the CLI is refused while the server's turn runs, and works
// once it ended.
func TestE2ELeaseServeAndResume(t *testing.T) {
	// Not parallel: a second process must start and reach the session
	// within a few seconds of a slow scripted step (the window the lease
	// is held); tests running beside it on a small machine close it.
	marker := "3.5"
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "sleep " + marker})),
		scripted.TextStep("server done"),
		scripted.TextStep("cli done").WithFault(scripted.Fault{FirstByteDelayMS: 4000, Times: 1}),
		scripted.TextStep("server again"),
	}})
	s := startServeProc(t, x)
	id := s.newSession()
	first := s.events(id)
	s.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "sleep please"})
	// Its tool call under way: the turn holds the session's lease (the
	// status says running from the moment the prompt is queued).
	for deadline := time.After(30 * time.Second); ; {
		select {
		case e, ok := <-first:
			if !ok {
				t.Fatal("event stream ended before the server's tool call")
			}
			if e.Type != event.ToolUse {
				continue
			}
		case <-deadline:
			t.Fatal("the server's turn did not reach its tool call")
		}
		break
	}
	r := x.RunStream("me too", "--resume", id, "--permission-mode", "trust")
	if r.Code == 0 || !strings.Contains(r.Result().Error, "is busy (running in pid") {
		t.Fatalf("resume during the server's turn: exit %d %+v\n%s", r.Code, r.Result(), r.Stderr)
	}
	waitFor(t, "the server's turn to end", 20*time.Second, func() bool {
		return s.call("GET", "/api/sessions/"+id, nil)["status"] == "idle"
	})
	// Now the CLI runs a slow turn and the server's turn is the one refused.
	events := s.events(id)
	cli := x.Start(streamArgs("me now", "--resume", id, "--permission-mode", "trust")...)
	cli.WaitEvent("status", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	s.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "server while cli runs"})
	res := waitResult(t, events)
	if !res.IsError || !strings.Contains(res.Error, fmt.Sprintf("is busy (running in pid %d", cli.cmd.Process.Pid)) {
		t.Fatalf("server turn during the CLI's: %+v", res)
	}
	r = cli.Wait(30 * time.Second)
	mustSucceed(t, r)
	if r.Result().Result != "cli done" {
		t.Errorf("resumed result %+v", r.Result())
	}
	// The server's next turn continues after the CLI's messages.
	s.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "server after"})
	if res := waitResult(t, events); res.IsError || res.Result != "server again" || res.Seq <= r.Result().Seq {
		t.Errorf("server turn after the CLI's: %+v (CLI's result seq %d)", res, r.Result().Seq)
	}
	ex, _ := x.Export(id)
	checkAlternating(t, ex.Messages)
	if len(ex.Messages) != 8 {
		t.Errorf("stored %d messages, want 8", len(ex.Messages))
	}
}

// events opens the session's SSE stream; events arrive on the channel.
func (s *serveProc) events(id string) <-chan event.Event {
	s.t.Helper()
	return openEvents(s.t, s.base, s.token, id, "")
}

func waitResult(t *testing.T, ch <-chan event.Event) event.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatal("event stream ended before a result")
			}
			if e.Type == event.Result {
				return e
			}
		case <-deadline:
			t.Fatal("no result within 30s")
		}
	}
}

// serveProc is a `tandem serve` process of the test's world.
type serveProc struct {
	t     *testing.T
	x     *e2e
	p     *liveProc
	base  string
	token string
}

func startServeProc(t *testing.T, x *e2e) *serveProc {
	t.Helper()
	addr := freeAddr(t)
	s := &serveProc{t: t, x: x, base: "http://" + addr, token: "e2e-serve-token-0123456789"}
	s.p = x.Start("serve", "--addr", addr, "--token", s.token, "--workspace", x.Work, "--permission-mode", "trust")
	waitListening(t, s.base)
	return s
}

func (s *serveProc) call(method, path string, body any) map[string]any {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
	}
	return out
}

func (s *serveProc) newSession() string {
	s.t.Helper()
	sess := s.call("POST", "/api/sessions", map[string]string{"cwd": s.x.Work, "mode": "trust", "model": "anthropic/claude-sonnet-5-5"})
	return fmt.Sprint(sess["id"])
}
