package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/scripted"
)

type doctorJSON struct {
	DefaultModel string            `json:"default_model"`
	Providers    []providers.Probe `json:"providers"`
}

func runDoctorJSON(t *testing.T, x *e2e) (doctorJSON, runResult) {
	t.Helper()
	r := x.Run("doctor", "--json")
	var d doctorJSON
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("doctor --json is not JSON: %v\n%s\n%s", err, r.Stdout, r.Stderr)
	}
	return d, r
}

func probeOf(d doctorJSON, name string) (providers.Probe, bool) {
	for _, p := range d.Providers {
		if p.Provider == name {
			return p, true
		}
	}
	return providers.Probe{}, false
}

// Both keyed providers (Anthropic and OpenAI, pointed at the scripted
// server) answer their model list; the default model is in it.
func TestE2EDoctorHealthyProviders(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{RequireKey: "test-key"})
	d, r := runDoctorJSON(t, x)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, name := range []string{"anthropic", "openai"} {
		p, ok := probeOf(d, name)
		if !ok || !p.OK || !p.Reachable || !p.Authenticated || p.Models == 0 || p.Method != "models" {
			t.Errorf("%s: %+v (found %v)", name, p, ok)
		}
	}
	if p, _ := probeOf(d, "anthropic"); p.Model != "claude-sonnet-5-5" || p.ModelAvailable == nil || !*p.ModelAvailable {
		t.Errorf("default model not checked: %+v", p)
	}
	text := x.Run("doctor")
	if text.Code != 0 || !strings.Contains(text.Stdout, "Providers:") || !strings.Contains(text.Stdout, "claude-sonnet-5-5 available") {
		t.Errorf("text report: exit %d\n%s", text.Code, text.Stdout)
	}
	if off := x.Run("doctor", "--offline"); off.Code != 0 || !strings.Contains(off.Stdout, "not checked") {
		t.Errorf("--offline: exit %d\n%s", off.Code, off.Stdout)
	}
}

// A refused key and an unreachable server each make doctor fail.
func TestE2EDoctorFailingProviders(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{RequireKey: "another-key"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	x.Env = append(x.Env, "OPENAI_BASE_URL="+closed+"/v1")
	d, r := runDoctorJSON(t, x)
	if r.Code != 1 {
		t.Errorf("exit %d, want 1\n%s", r.Code, r.Stdout)
	}
	if p, ok := probeOf(d, "anthropic"); !ok || p.OK || !p.Reachable || p.Authenticated || p.HTTPStatus != 401 {
		t.Errorf("anthropic (401): %+v", p)
	}
	if p, ok := probeOf(d, "openai"); !ok || p.OK || p.Reachable || p.Error == "" {
		t.Errorf("openai (closed port): %+v", p)
	}
	text := x.Run("doctor")
	if text.Code != 1 || !strings.Contains(text.Stdout, "AUTH REFUSED") || !strings.Contains(text.Stdout, "UNREACHABLE") {
		t.Errorf("text report: exit %d\n%s", text.Code, text.Stdout)
	}
}

// Doctor flags the configured models: a retired fallback (sessions refuse
// it) and a default missing from the live list fail it; a legacy default
// is a warning.
func TestE2EDoctorFlagsModelLifecycles(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Models: []string{"claude-sonnet-5-5", "gpt-4o"}})
	x.WriteConfig(`{"model": "anthropic/claude-opus-4-8", "fallback_models": ["anthropic/claude-sonnet-4-5"]}`)
	r := x.Run("doctor", "--json")
	var d struct {
		Errors   []string `json:"model_errors"`
		Warnings []string `json:"model_warnings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, r.Stdout, r.Stderr)
	}
	if r.Code != 1 || len(d.Errors) != 2 || len(d.Warnings) != 1 {
		t.Fatalf("exit %d, errors %q, warnings %q", r.Code, d.Errors, d.Warnings)
	}
	for _, want := range []string{
		"fallback model anthropic/claude-sonnet-4-5: claude-sonnet-4-5 was retired on 2026-11-30 on the Anthropic API; use claude-sonnet-5-5 (--model sonnet)",
		"model claude-opus-4-8 is not in anthropic's live model list",
	} {
		if !strings.Contains(strings.Join(d.Errors, "\n"), want) {
			t.Errorf("errors lack %q: %q", want, d.Errors)
		}
	}
	if !strings.Contains(d.Warnings[0], "default model anthropic/claude-opus-4-8: claude-opus-4-8 is a legacy model on the Anthropic API") {
		t.Errorf("warning %q", d.Warnings[0])
	}
	text := x.Run("doctor", "--offline")
	if text.Code != 1 || !strings.Contains(text.Stdout, "model:         ERROR fallback model anthropic/claude-sonnet-4-5") ||
		!strings.Contains(text.Stdout, "model:         WARNING default model anthropic/claude-opus-4-8") {
		t.Errorf("text report: exit %d\n%s", text.Code, text.Stdout)
	}
}
