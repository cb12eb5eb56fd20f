//go:build linux

package sqlite

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storetest"
)

// smallDisk mounts a 2 MiB tmpfs for the test, or skips: it needs root
// (CI containers run tests as root; elsewhere the test says why it did not
// run).
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes a file until the disk is full; removing it frees the space.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return p
		}
	}
}

// conformanceOptions give the conformance suite a database on a small
// disk of its own (see smallDisk).
func conformanceOptions() storetest.Options { return storetest.Options{DiskFull: diskFull} }

// diskFull is a database on a small disk with how to fill and free it.
func diskFull(t *testing.T) (storetest.DB, func(), func()) {
	disk := smallDisk(t)
	var filler string
	return handles(t, filepath.Join(disk, "data", "tandem.db")),
		func() { filler = fill(t, disk) },
		func() { os.Remove(filler) }
}

func TestDiskFullIsClearAndRecovers(t *testing.T) {
	disk := smallDisk(t)
	path := filepath.Join(disk, "data", "tandem.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.fullWait = 0
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	filler := fill(t, disk)
	big := message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(strings.Repeat("answer ", 20000))}}
	_, err = s.AppendWithSeq(ctx, sess.ID, big, 0)
	var fe *store.DiskFullError
	if !errors.Is(err, store.ErrDiskFull) || !errors.As(err, &fe) {
		t.Fatalf("append on a full disk: %v", err)
	}
	for _, want := range []string{"is full", filepath.Join(disk, "data"), "so tandem could not store the model's final answer (shown above)", "tandem sessions delete"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	s.Close()

	os.Remove(filler)
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("open after freeing space: %v", err)
	}
	if _, err := s.AppendWithSeq(ctx, sess.ID, big, 0); err != nil {
		t.Fatalf("append after freeing space: %v", err)
	}
	s.Close() // a clean close removes the -wal and -shm files

	// Opening a database on a full disk (no room for its -shm file) gives a
	// read-only store: sessions can be listed and read, writes say the disk
	// is full.
	filler = fill(t, disk)
	ro, err := Open(path, Options{})
	if err != nil || ro.full == nil {
		t.Fatalf("open on a full disk: %v (read-only: %v)", err, ro != nil && ro.full != nil)
	}
	if msgs, err := ro.Messages(ctx, sess.ID); err != nil || len(msgs) != 1 {
		t.Errorf("read on a full disk: %d messages, %v", len(msgs), err)
	}
	if _, err := ro.CreateSession(ctx, store.Session{Cwd: "/q"}); !errors.Is(err, store.ErrDiskFull) || !strings.Contains(err.Error(), "is full") {
		t.Errorf("write to the read-only store: %v", err)
	}
	ro.Close()
	os.Remove(filler)
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if msgs, _ := s.Messages(ctx, sess.ID); len(msgs) != 1 {
		t.Errorf("stored %d messages, want 1", len(msgs))
	}
}

// A message write that finds the disk full waits for space to come back
// (within fullWait) and then stores the message.
func TestDiskFullWriteRetriesUntilSpaceIsBack(t *testing.T) {
	disk := smallDisk(t)
	s, err := Open(filepath.Join(disk, "tandem.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.fullWait = 20 * time.Second
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	filler := fill(t, disk)
	go func() {
		time.Sleep(500 * time.Millisecond)
		os.Remove(filler)
	}()
	results := message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "t1",
		Content: []message.Block{message.TextBlock(strings.Repeat("output ", 20000))}}}}
	start := time.Now()
	if _, err := s.AppendWithSeq(ctx, sess.ID, results, 0); err != nil {
		t.Fatalf("append: %v", err)
	}
	if time.Since(start) < 400*time.Millisecond {
		t.Errorf("stored before space came back: the disk was not full")
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("stored %d messages: %v", len(msgs), err)
	}
}
