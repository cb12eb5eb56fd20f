package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f takes longer than 15 s: what it guards
// against is a read that blocks forever.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// A FIFO put where a checkpointed file was stops the rewind with an error
// naming it, instead of hanging it (with --force too).
func TestRewindOverFIFO(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.prompt("change", func() {
		w.call("Bash", map[string]any{"command": "echo a2 > a.txt"})
	})
	p := filepath.Join(w.work, "a.txt")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []RewindOptions{{}, {Force: true}} {
		within(t, "rewind over a FIFO", func() {
			_, err := w.svc.Rewind(w.ctx, w.id, 1, opt)
			if err == nil || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), "special file (p") {
				t.Errorf("rewind (force %v) = %v, want an error naming a.txt as a special file in the way", opt.Force, err)
			}
		})
	}
}

// A .gitignore that is a FIFO, or a link to /dev/urandom, is skipped by
// the workspace scan: neither blocks it nor fills memory.
func TestScanSkipsSpecialIgnoreFiles(t *testing.T) {
	w := newWorld(t, Config{})
	if err := syscall.Mkfifo(filepath.Join(w.work, ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/urandom", filepath.Join(w.work, "sub", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	w.write("a.txt", "a1\n")
	within(t, "a scan with a FIFO .gitignore", func() {
		w.prompt("change", func() {
			w.call("Bash", map[string]any{"command": "echo a2 > a.txt; echo s > sub/s.txt"})
		})
	})
	if got := states(w.checkpoints()[0], w.work); got["a.txt"] != "saved" || got["sub/s.txt"] != "absent" {
		t.Errorf("recorded %v, want a.txt saved and sub/s.txt absent", got)
	}
}
