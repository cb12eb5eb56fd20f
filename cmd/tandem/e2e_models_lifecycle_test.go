package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A retired model is refused before any request: the scripted server,
// standing in for the Anthropic API, sees none, and the error names the
// replacement and the short name that reaches it.
func TestE2ERetiredModelRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("should not be asked")}})
	r := x.Run("run", "-p", "hello", "--output-format", "json", "--model", "anthropic/claude-sonnet-4-5")
	if r.Code == 0 {
		t.Fatalf("a retired model ran:\n%s", r.Stdout)
	}
	want := "claude-sonnet-4-5 was retired on 2026-11-30 on the Anthropic API; use claude-sonnet-5-5 (--model sonnet)"
	if !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("want %q in the output:\nstdout: %s\nstderr: %s", want, r.Stdout, r.Stderr)
	}
	if n := len(x.srv.Requests()); n != 0 {
		t.Errorf("the provider got %d requests for a retired model", n)
	}
	// The short name reaches the current model, which the key's default is too.
	r = x.Run("run", "-p", "hello", "--output-format", "json", "--model", "sonnet")
	mustSucceed(t, r)
	if got := x.srv.Requests(); len(got) == 0 || got[len(got)-1].Model() != "claude-sonnet-5-5" {
		t.Errorf("sonnet sent %+v", got)
	}
}
