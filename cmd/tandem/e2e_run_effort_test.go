package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// effortOf is the effort a completion request asked for ("" for none).
func effortOf(r scripted.Request) string {
	oc, _ := r.Body["output_config"].(map[string]any)
	e, _ := oc["effort"].(string)
	return e
}

// --effort on `tandem run` and on the Claude Code CLI protocol reaches
// the model's request for the run (it used to be parsed and dropped by
// the drop-in, and `tandem run` had no such flag); a bad level is refused
// naming the levels.
func TestE2ERunEffortFlag(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	r := x.RunStream("hi", "--model", "anthropic/claude-sonnet-5-5", "--effort", "low")
	mustSucceed(t, r)
	if got := effortOf(x.lastMain()); got != "low" {
		t.Errorf("tandem run --effort low: request effort %q: %s", got, x.lastMain().RawBody)
	}

	x.srv.Reset()
	d := x.Run("-p", "hi", "--output-format", "json", "--model", "anthropic/claude-sonnet-5-5", "--effort", "high")
	if d.Code != 0 {
		t.Fatalf("drop-in: exit %d\n%s", d.Code, d.Stderr)
	}
	if got := effortOf(x.lastMain()); got != "high" {
		t.Errorf("drop-in --effort high: request effort %q: %s", got, x.lastMain().RawBody)
	}

	for _, args := range [][]string{{"run", "-p", "hi", "--effort", "extreme"}, {"-p", "hi", "--effort", "extreme"}} {
		bad := x.Run(args...)
		if bad.Code == 0 || !strings.Contains(bad.Stderr, "--effort") || !strings.Contains(bad.Stderr, "low, medium, high, xhigh or max") {
			t.Errorf("%v: exit %d\n%s", args, bad.Code, bad.Stderr)
		}
	}
}
