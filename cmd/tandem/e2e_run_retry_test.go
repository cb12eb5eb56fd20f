package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// 429 with retry-after, 529 and a stream cut mid-way are retried with
// retry events; the turn then succeeds.
func TestE2ERunRetries(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "a.txt"})).WithFault(scripted.StatusFault(429, 1)),
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "b.txt"})).WithFault(scripted.StatusFault(529, 0)),
		scripted.TextStep("Finished after a bumpy stream with a long enough answer.").WithFault(scripted.MidStreamFault()),
	}})
	x.WriteFile("a.txt", "a\n")
	x.WriteFile("b.txt", "b\n")
	r := x.RunStream("read both")
	mustSucceed(t, r)
	if got := r.Result().Result; got != "Finished after a bumpy stream with a long enough answer." {
		t.Errorf("result text %q", got)
	}
	retries := eventsOf(r, event.Retry)
	if len(retries) != 3 {
		t.Fatalf("want 3 retry events, got %d: %+v", len(retries), retries)
	}
	if e := retries[0]; e.HTTPStatus != 429 || e.Attempt != 1 || e.DelayMS != 1000 {
		t.Errorf("429 retry %+v: want attempt 1, delay_ms 1000 (retry-after)", e)
	}
	if e := retries[1]; e.HTTPStatus != 529 || e.Attempt != 1 || e.DelayMS <= 0 || e.DelayMS > 2000 {
		t.Errorf("529 retry %+v", e)
	}
	if e := retries[2]; e.Attempt != 1 || e.DelayMS <= 0 || e.Error == "" {
		t.Errorf("mid-stream retry %+v", e)
	}
	// Each faulty step was asked twice: 3 steps + 3 retries.
	if n := len(x.srv.MainRequests()); n != 6 {
		t.Errorf("server got %d requests, want 6", n)
	}
}

// A rejected API key fails at once, in the result and on stderr.
func TestE2ERunAuthErrorFailsFast(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{RequireKey: "the-right-key", Steps: []scripted.Step{scripted.TextStep("never")}})
	r := x.RunStream("hello")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res := r.Result()
	if !res.IsError || res.Subtype != event.SubtypeProviderError || !strings.Contains(res.Error, "API key") {
		t.Errorf("result %+v", res)
	}
	if len(eventsOf(r, event.Retry)) != 0 || len(x.srv.MainRequests()) != 1 {
		t.Errorf("a 401 was retried: %d requests", len(x.srv.MainRequests()))
	}
	if !strings.Contains(r.Stderr, "API key") {
		t.Errorf("stderr does not name the API key problem:\n%s", r.Stderr)
	}
	// Text output says it on stderr too.
	rt := x.Run("run", "-p", "hello", "--model", "anthropic/claude-sonnet-5-5")
	if rt.Code != 1 || !strings.Contains(rt.Stderr, "API key") || strings.TrimSpace(rt.Stdout) != "" {
		t.Errorf("text output: exit %d\nstdout:\n%s\nstderr:\n%s", rt.Code, rt.Stdout, rt.Stderr)
	}
}
