package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Through a claude-code-compat provider the native runtime sends Claude
// Code's request shape.
func TestE2ECompatTransportSendsClaudeCodeShape(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello from the proxy")}})
	cfg := `{"providers":{"proxy":{"kind":"anthropic","base_url":"` + x.url + `","api_key":"proxy-key","transport":"claude-code-compat"}}}`
	x.WriteConfig(cfg)
	r := x.Run("run", "-p", "hi", "--runtime", "native", "--model", "proxy/claude-sonnet-4-5")
	if r.Code != 0 || !strings.Contains(r.Stdout, "hello from the proxy") {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var seen bool
	for _, q := range x.srv.Requests() {
		if q.API != scripted.APIAnthropic {
			continue
		}
		seen = true
		sys, _ := q.Body["system"].([]any)
		first := ""
		if len(sys) > 1 {
			b, _ := sys[1].(map[string]any)
			first, _ = b["text"].(string)
		}
		if !strings.HasPrefix(q.Header.Get("User-Agent"), "claude-cli/") || q.Header.Get("X-App") != "cli" ||
			!strings.Contains(q.Header.Get("Anthropic-Beta"), "claude-code-20250219") ||
			first != "You are Claude Code, Anthropic's official CLI for Claude." || q.Header.Get("X-Api-Key") != "proxy-key" {
			t.Errorf("request is not Claude Code's shape: %v\n%v", q.Header, q.Body["system"])
		}
	}
	if !seen {
		t.Fatal("no Messages request")
	}
	if _, err := os.Stat(filepath.Join(x.Home, "install-id")); err != nil {
		t.Errorf("install id not kept: %v", err)
	}
}
