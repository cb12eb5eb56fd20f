package main

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A tandem killed with SIGKILL in the middle of a tool call leaves a
// readable database and a session that resumes with every tool_use answered.
func TestE2ERunKill9MidToolResumes(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo first-step"})),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "sleep " + marker})),
		scripted.TextStep("Recovered."),
	}})
	p := x.Start("run", "-p", "work slowly", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	first := p.WaitEvent("status event", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	id := first.SessionID
	// The sleep running means the second step's assistant message is stored.
	sleepStarted(t, marker)
	p.Signal(syscall.SIGKILL)
	if r := p.Wait(10 * time.Second); r.Code == 0 {
		t.Fatalf("killed tandem exited 0")
	}

	ex, r := x.Export(id)
	if r.Code != 0 {
		t.Fatalf("export after kill -9: exit %d\n%s", r.Code, r.Stderr)
	}
	// user, assistant(echo), user(result), assistant(sleep): the step in
	// flight is the only thing missing.
	if n := len(ex.Messages); n != 4 || ex.Messages[3].Role != message.Assistant || len(ex.Messages[3].ToolUses()) != 1 {
		t.Fatalf("stored after kill: %d messages %+v", n, ex.Messages)
	}
	if show := x.Run("sessions", "show", id); show.Code != 0 || !strings.Contains(show.Stdout, "first-step") {
		t.Fatalf("sessions show after kill: exit %d\n%s%s", show.Code, show.Stdout, show.Stderr)
	}

	res := x.RunStream("carry on", "--resume", id, "--permission-mode", "trust")
	mustSucceed(t, res)
	if res.Result().Result != "Recovered." || res.Result().SessionID != id {
		t.Errorf("resumed result %+v", res.Result())
	}
	req := x.lastMain()
	checkToolPairs(t, req)
	if !strings.Contains(string(req.RawBody), "interrupted before it finished") {
		t.Errorf("the dangling tool_use was not answered with the repair message:\n%s", req.RawBody)
	}
	if !strings.Contains(string(req.RawBody), "carry on") {
		t.Errorf("resumed request lacks the new prompt")
	}
}

// SIGKILL while the model is slow to answer (no tool in flight) keeps the
// finished steps.
func TestE2ERunKill9DuringModelCall(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo step-one-done"})),
		scripted.TextStep("late").WithFault(scripted.Fault{FirstByteDelayMS: 20000, Times: 1}),
		scripted.TextStep("after resume"),
	}})
	p := x.Start("run", "-p", "go", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	tr := p.WaitEvent("tool_result", 30*time.Second, func(e event.Event) bool { return e.Type == event.ToolResult })
	id := tr.SessionID
	waitFor(t, "the stored tool result", 30*time.Second, func() bool {
		ex, r := x.Export(id)
		return r.Code == 0 && len(ex.Messages) == 3
	})
	// The server is now holding the second step's request.
	waitFor(t, "the second model call", 30*time.Second, func() bool { return len(x.srv.MainRequests()) >= 2 })
	p.Signal(syscall.SIGKILL)
	p.Wait(10 * time.Second)

	ex, r := x.Export(id)
	if r.Code != 0 || len(ex.Messages) != 3 || !strings.Contains(ex.Messages[2].Content[0].Content[0].Text, "step-one-done") {
		t.Fatalf("stored after kill: exit %d %+v\n%s", r.Code, ex.Messages, r.Stderr)
	}
	res := x.RunStream("again", "--resume", id)
	mustSucceed(t, res)
	checkToolPairs(t, x.lastMain())
}

// Two tandem processes sharing one TANDEM_HOME run multi-step turns at the
// same time; both sessions are stored whole.
func TestE2ERunTwoProcessesSameHome(t *testing.T) {
	t.Parallel()
	var steps []scripted.Step
	for i := 0; i < 4; i++ {
		steps = append(steps, scripted.ToolStep(
			scripted.Call("Bash", map[string]any{"command": fmt.Sprintf("echo step-%d", i)}),
			scripted.Call("Read", map[string]any{"file_path": "a.txt"}),
		).WithFault(scripted.Fault{DelayBetweenChunksMS: 2, Always: true}))
	}
	steps = append(steps, scripted.TextStep("All steps done."))
	x := newE2E(t, scripted.Script{Steps: steps})
	x.WriteFile("a.txt", "shared\n")
	const n = 2
	results := make([]runResult, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = x.RunStream(fmt.Sprintf("job %d", i), "--permission-mode", "trust")
		}(i)
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, r := range results {
		mustSucceed(t, r)
		res := r.Result()
		if res.NumTurns != 5 || res.Result != "All steps done." {
			t.Errorf("process %d result %+v", i, res)
		}
		ids[res.SessionID] = true
		ex, er := x.Export(res.SessionID)
		if er.Code != 0 {
			t.Fatalf("export %s: %s", res.SessionID, er.Stderr)
		}
		// prompt + 4×(assistant, results) + final answer
		if len(ex.Messages) != 10 {
			t.Errorf("session %s stored %d messages, want 10", res.SessionID, len(ex.Messages))
		}
		if !strings.Contains(ex.Messages[0].PlainText(), fmt.Sprintf("job %d", i)) {
			t.Errorf("session %s first message %q", res.SessionID, ex.Messages[0].PlainText())
		}
	}
	if len(ids) != n {
		t.Errorf("sessions %v: want %d distinct", ids, n)
	}
}

// SIGINT during a long Bash call stops the turn quickly, kills the command,
// stores the session and lets a later turn resume it.
func TestE2ERunInterruptDuringBash(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "sleep " + marker})),
		scripted.TextStep("Picked up again."),
	}})
	p := x.Start("run", "-p", "wait a while", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	sleepStarted(t, marker)
	start := time.Now()
	p.Signal(syscall.SIGINT)
	r := p.Wait(30 * time.Second)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if r.Code == 0 {
		t.Errorf("interrupted run exited 0")
	}
	res := r.Result()
	if res.Subtype != event.SubtypeInterrupted || !res.IsError {
		t.Fatalf("result %+v\nstdout:\n%s\nstderr:\n%s", res, r.Stdout, r.Stderr)
	}
	sleepGone(t, marker)

	ex, er := x.Export(res.SessionID)
	if er.Code != 0 || len(ex.Messages) != 3 {
		t.Fatalf("stored after interrupt: exit %d %+v", er.Code, ex.Messages)
	}
	if tr := ex.Messages[2].Content; len(tr) != 1 || tr[0].Type != message.ToolResult {
		t.Errorf("interrupted tool call has no stored result: %+v", tr)
	}
	again := x.RunStream("continue please", "--resume", res.SessionID)
	mustSucceed(t, again)
	if again.Result().Result != "Picked up again." {
		t.Errorf("resumed %+v", again.Result())
	}
	checkToolPairs(t, x.lastMain())
}

// SIGTERM while the model is slow to answer, and SIGINT while a retry
// waits out a long Retry-After, both end the turn at once as interrupted.
func TestE2ERunInterruptDuringModelCallAndRetryWait(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		fault scripted.Fault
		sig   syscall.Signal
		ready func(x *e2e, p *liveProc)
	}{
		{"slow model SIGTERM", scripted.Fault{FirstByteDelayMS: 120000}, syscall.SIGTERM, func(x *e2e, p *liveProc) {
			waitFor(x.t, "the request to be in flight", 30*time.Second, func() bool { return len(x.srv.MainRequests()) >= 1 })
		}},
		{"retry wait SIGINT", scripted.StatusFault(429, 30), syscall.SIGINT, func(x *e2e, p *liveProc) {
			p.WaitEvent("retry", 30*time.Second, func(e event.Event) bool { return e.Type == event.Retry && e.DelayMS == 30000 })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("late").WithFault(c.fault), scripted.TextStep("resumed")}})
			p := x.Start("run", "-p", "go", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5")
			c.ready(x, p)
			start := time.Now()
			p.Signal(c.sig)
			r := p.Wait(30 * time.Second)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("stopping took %v", d)
			}
			if res := r.Result(); r.Code == 0 || res.Subtype != event.SubtypeInterrupted {
				t.Fatalf("exit %d result %+v\n%s", r.Code, res, r.Stderr)
			}
			ex, er := x.Export(r.Result().SessionID)
			if er.Code != 0 || len(ex.Messages) != 1 || ex.Messages[0].PlainText() != "go" {
				t.Fatalf("stored %+v %s", ex.Messages, er.Stderr)
			}
			again := x.RunStream("again", "--resume", r.Result().SessionID)
			mustSucceed(t, again)
			if again.Result().Seq <= r.Result().Seq {
				t.Errorf("seq did not advance: %d then %d", r.Result().Seq, again.Result().Seq)
			}
		})
	}
}
