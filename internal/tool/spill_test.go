package tool

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSpillFilesArePerSessionBoundedAndRemoved(t *testing.T) {
	data := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var paths []string
	for i, s := range []string{"s1", "s2", "s1", "s2"} {
		f, err := CreateSpill(data, s, "bash", 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, 1000))
		f.Close()
		if filepath.Dir(f.Name()) != filepath.Join(data, "tool-output", s) {
			t.Fatalf("spill file %s is not in its session's folder", f.Name())
		}
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(f.Name(), mt, mt)
		paths = append(paths, f.Name())
	}
	// Over the limit: the oldest go first, across sessions.
	PruneSpill(data, 2500)
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i < 2) {
			t.Errorf("file %d gone=%v", i, gone)
		}
	}
	if err := RemoveSpill(data, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "tool-output", "s1")); err == nil {
		t.Error("s1's spill folder survived the session")
	}
	if _, err := os.Stat(paths[3]); err != nil {
		t.Error("removing s1 removed s2's output")
	}
	// A session id cannot climb out of the folder, nor name the folder
	// itself (which removing one session's output would empty).
	for _, bad := range []string{"../../etc", "../../..", "/", "a/b", "..", ".", "x\x00y"} {
		if d, err := SpillDir(data, bad); err == nil {
			t.Errorf("SpillDir(%q) = %s, want a refusal", bad, d)
		}
		if err := RemoveSpill(data, bad); err == nil {
			t.Errorf("RemoveSpill(%q) was not refused", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "tool-output")); err != nil {
		t.Errorf("the spill root is gone: %v", err)
	}
	err := SpillError("/d/tool-output/s1", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC})
	if !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), "/d/tool-output/s1") {
		t.Errorf("ENOSPC: %v", err)
	}
}
