package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A rewind killed with SIGKILL midway leaves every file whole (old or new
// content, never a mix, no temporary files once re-run), and running it
// again finishes the job without --force.
func TestE2ERewindKilledMidwayCanBeRerun(t *testing.T) {
	t.Parallel()
	const n = 200
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "sed -i 's/.*/changed/;2,$d' f*.txt"})),
		scripted.TextStep("changed them all"),
	}})
	orig := func(i int) string { return fmt.Sprintf("original %d\n%s", i, strings.Repeat("x", 32<<10)) }
	for i := 0; i < n; i++ {
		x.WriteFile(fmt.Sprintf("f%03d.txt", i), orig(i))
	}
	r := x.RunStream("change all files", "--permission-mode", "trust")
	mustSucceed(t, r)
	id := r.Result().SessionID
	if res := toolResults(r)["b1"]; res.IsError {
		t.Fatalf("the shell command failed: %s", res.Output)
	}

	p := x.Start("sessions", "rewind", id, "--to", "1")
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(p.Stdout(), "restored ") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the rewind restored nothing in 20s\nstdout:\n%s\nstderr:\n%s", p.Stdout(), p.Stderr())
		}
		time.Sleep(2 * time.Millisecond)
	}
	p.Signal(syscall.SIGKILL)
	killed := p.Wait(10 * time.Second)
	if strings.Contains(killed.Stdout, "rewound ") {
		t.Fatalf("the rewind finished before the kill; the test did not interrupt it:\n%s", killed.Stdout)
	}
	restored := 0
	for i := 0; i < n; i++ {
		switch got := x.ReadFile(fmt.Sprintf("f%03d.txt", i)); got {
		case orig(i):
			restored++
		case "changed\n":
		default:
			t.Fatalf("f%03d.txt is half written after the kill (%d bytes)", i, len(got))
		}
	}
	if restored == 0 || restored == n {
		t.Fatalf("%d of %d files restored at the kill: not midway", restored, n)
	}

	again := x.Run("sessions", "rewind", id, "--to", "1")
	if again.Code != 0 {
		t.Fatalf("re-run after the kill: %s%s", again.Stdout, again.Stderr)
	}
	for i := 0; i < n; i++ {
		if got := x.ReadFile(fmt.Sprintf("f%03d.txt", i)); got != orig(i) {
			t.Fatalf("f%03d.txt not restored by the re-run", i)
		}
	}
	entries, _ := os.ReadDir(x.Work)
	for _, e := range entries {
		if strings.Contains(e.Name(), "tandem-rewind") {
			t.Errorf("temporary file left behind: %s", filepath.Join(x.Work, e.Name()))
		}
	}
	exp, _ := x.Export(id)
	if len(exp.Messages) != 0 {
		t.Errorf("%d messages left after rewinding to prompt 1", len(exp.Messages))
	}
}
