package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// fallbackE2E: the Anthropic endpoint answers 529 to every attempt (with a
// short Retry-After so the six attempts are quick); a second scripted
// server behind OPENAI_BASE_URL answers as the fallback.
func fallbackE2E(t *testing.T) (*e2e, *scripted.Server) {
	t.Helper()
	overloaded := scripted.Fault{Status: 529, RetryAfter: "0.01", Always: true}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("never").WithFault(overloaded)}})
	backup, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("answered by the fallback").WithUsage(scripted.Usage{InputTokens: 500000, OutputTokens: 250000}),
	}})
	x.Env = append(x.Env, "OPENAI_BASE_URL="+url+"/v1")
	return x, backup
}

// gpt-4.1-mini: $0.40 per million input tokens, $1.60 per million output.
const fallbackCost = 0.5*0.4 + 0.25*1.6

func TestE2ERunFallbackModel(t *testing.T) {
	t.Parallel()
	x, backup := fallbackE2E(t)
	r := x.RunStream("hello", "--fallback-model", "openai/gpt-4.1-mini")
	mustSucceed(t, r)
	if got := r.Result().Result; got != "answered by the fallback" {
		t.Errorf("result %q", got)
	}
	if n := len(x.srv.MainRequests()); n != 6 {
		t.Errorf("primary asked %d times, want 6 (the retries)", n)
	}
	if n := len(backup.MainRequests()); n != 1 {
		t.Errorf("fallback asked %d times, want 1", n)
	}
	var fb []event.Event
	for _, e := range eventsOf(r, event.Retry) {
		if e.Model != "" {
			fb = append(fb, e)
		}
	}
	if len(fb) != 1 || fb[0].Model != "openai/gpt-4.1-mini" || fb[0].HTTPStatus != 529 {
		t.Fatalf("fallback retry events %+v", fb)
	}
	if c := r.Result().CostUSD; c == nil || math.Abs(*c-fallbackCost) > 1e-9 {
		t.Errorf("turn cost %v, want %v (the fallback's prices)", c, fallbackCost)
	}
	ex, er := x.Export(r.Result().SessionID)
	if er.Code != 0 {
		t.Fatalf("export: %s", er.Stderr)
	}
	last := ex.Messages[len(ex.Messages)-1]
	if last.Model != "openai/gpt-4.1-mini" || last.CostUSD == nil || math.Abs(*last.CostUSD-fallbackCost) > 1e-9 {
		t.Errorf("stored answer: model %q cost %v", last.Model, last.CostUSD)
	}
}

// fallback_models in the user's config applies when no flag names any; a
// project file may not set it without trust.
func TestE2ERunFallbackFromConfig(t *testing.T) {
	t.Parallel()
	x, _ := fallbackE2E(t)
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"fallback_models": []string{"openai/gpt-4.1-mini"}})
	r := x.RunStream("hello")
	mustSucceed(t, r)
	if got := r.Result().Result; got != "answered by the fallback" {
		t.Errorf("result %q", got)
	}

	// An untrusted project's fallback_models is left out (the user's still
	// applies) and the run says so; --require-trust refuses it.
	x.WriteFile(".tandem/config.json", `{"fallback_models":["openai/gpt-4.1-mini"]}`)
	r = x.RunStream("hello")
	mustSucceed(t, r)
	if strings.Count(r.Stderr, `.tandem/config.json: "fallback_models"`) != 1 {
		t.Errorf("an untrusted project's fallback_models was not named as left out:\n%s", r.Stderr)
	}
	r = x.RunStream("hello", "--require-trust")
	if r.Code == 0 || !strings.Contains(r.Stderr, "fallback_models") {
		t.Errorf("--require-trust accepted an untrusted project's fallback_models: exit %d\n%s", r.Code, r.Stderr)
	}
}

// The Claude Code drop-in acts on --fallback-model and says so in its
// api_retry line.
func TestE2EDropinFallbackModel(t *testing.T) {
	t.Parallel()
	x, _ := fallbackE2E(t)
	r := x.Run("-p", "hello", "--output-format", "stream-json", "--verbose",
		"--model", "anthropic/claude-sonnet-5-5", "--fallback-model", "openai/gpt-4.1-mini")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var sawFallback bool
	var result map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m["subtype"] == "api_retry" && m["fallback_model"] == "openai/gpt-4.1-mini" {
			sawFallback = true
		}
		if m["type"] == "result" {
			result = m
		}
	}
	if !sawFallback {
		t.Errorf("no api_retry line names the fallback:\n%s", r.Stdout)
	}
	if result == nil || result["result"] != "answered by the fallback" {
		t.Errorf("result %v", result)
	}
	if strings.Contains(r.Stderr, "--fallback-model is ignored") {
		t.Errorf("--fallback-model still reported as ignored:\n%s", r.Stderr)
	}
}
