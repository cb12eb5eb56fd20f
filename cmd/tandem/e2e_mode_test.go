package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A resumed CLI session does not inherit the trust an earlier run was
// given on its command line.
func TestE2EResumeDoesNotInheritTrust(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm -rf build1"})),
		scripted.TextStep("first done"),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm -rf build2"})),
		scripted.TextStep("second done"),
	}})
	for _, d := range []string{"build1", "build2"} {
		if err := os.MkdirAll(filepath.Join(x.Work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := x.RunDetached(streamArgs("clean", "--permission-mode", "trust")...)
	mustSucceed(t, r)
	if fileExists(filepath.Join(x.Work, "build1")) {
		t.Fatal("trust run did not remove build1")
	}
	r2 := x.RunDetached("run", "--resume", r.Result().SessionID, "-p", "again", "--output-format", "stream-json")
	if !fileExists(filepath.Join(x.Work, "build2")) {
		t.Fatalf("resumed run inherited trust and removed build2:\n%s", r2.Stdout)
	}
	if len(r2.Result().PermissionDenials) != 1 {
		t.Errorf("want one denial, got %+v", r2.Result().PermissionDenials)
	}
	for _, e := range r2.Events {
		if e.Type == "status" && e.Mode != "" && e.Mode != "normal" {
			t.Errorf("status mode %q, want normal", e.Mode)
		}
	}
}

// Text output tells a person on stderr which calls were refused and why.
func TestE2ETextOutputReportsDenials(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm -rf build"})),
		scripted.TextStep("could not clean"),
	}})
	r := x.RunDetached("run", "-p", "clean", "--model", "anthropic/claude-sonnet-5-5")
	if r.Code != 0 || !strings.Contains(r.Stdout, "could not clean") {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "denied Bash") || !strings.Contains(r.Stderr, "rm -rf build") || !strings.Contains(r.Stderr, "no terminal") {
		t.Errorf("stderr does not explain the denial:\n%s", r.Stderr)
	}
}
