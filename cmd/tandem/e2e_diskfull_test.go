//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// diskFullWorld puts the test's TANDEM_HOME on a 2 MiB tmpfs (or skips: it
// needs root to mount one).
func diskFullWorld(t *testing.T, script scripted.Script) (*e2e, string) {
	t.Helper()
	x := newE2E(t, script)
	disk := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	x.Home = filepath.Join(disk, "home")
	os.MkdirAll(x.Home, 0o700)
	return x, filepath.Join(disk, "filler")
}

func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if f == nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}

// The disk fills while a tool runs: storing its result fails, the turn
// ends with a result that says the disk is full and what was not stored;
// after space is freed the session continues.
func TestE2EDiskFullFailsTheTurnClearly(t *testing.T) {
	t.Parallel()
	x, filler := diskFullWorld(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo tool-ran"})),
		scripted.TextStep("never stored").WithFault(scripted.Fault{FirstByteDelayMS: 1500, Times: 1}),
		scripted.TextStep("continued after space came back"),
	}})
	first := x.RunStream("warm up", "--max-turns", "1")
	if first.Result().SessionID == "" {
		t.Fatalf("first run: %s %s", first.Stdout, first.Stderr)
	}
	p := x.Start(streamArgs("go on", "--continue", "--permission-mode", "trust")...)
	p.WaitEvent("status", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	fillDisk(t, filler)
	r := p.Wait(60 * time.Second)
	res := r.Result()
	t.Logf("result error: %s", res.Error)
	if r.Code == 0 || !res.IsError {
		t.Fatalf("turn on a full disk succeeded:\n%s\n%s", r.Stdout, r.Stderr)
	}
	for _, want := range []string{"is full, so tandem could not store", x.Home, "tandem sessions delete"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("result error %q lacks %q", res.Error, want)
		}
	}
	// Still full: sessions can be listed (to choose what to delete).
	if l := x.Run("sessions", "list"); l.Code != 0 || !strings.Contains(l.Stdout, res.SessionID) {
		t.Errorf("sessions list on a full disk: exit %d\n%s%s", l.Code, l.Stdout, l.Stderr)
	}
	os.Remove(filler)
	again := x.RunStream("again", "--continue", "--permission-mode", "trust")
	mustSucceed(t, again)
	checkToolPairs(t, x.lastMain())
}
