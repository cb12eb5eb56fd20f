package regular

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestSpecialFilesNeverBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "CLAUDE.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	plain := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(plain, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := ReadFile(fifo); !IsNotRegular(err) {
			t.Errorf("FIFO: %v", err)
		}
		if _, _, err := ReadCapped("/dev/zero", 10); !IsNotRegular(err) {
			t.Errorf("/dev/zero: %v", err)
		}
		if _, err := Check(fifo, true); !IsNotRegular(err) {
			t.Errorf("Check FIFO: %v", err)
		}
		if _, err := Check(dir, true); err != nil {
			t.Errorf("Check dir: %v", err)
		}
		if _, err := Check(dir, false); !IsNotRegular(err) {
			t.Errorf("Check dir without dirOK: %v", err)
		}
		b, more, err := ReadCapped(plain, 3)
		if err != nil || string(b) != "hel" || !more {
			t.Errorf("ReadCapped: %q %v %v", b, more, err)
		}
		if b, err := ReadFile(plain); err != nil || string(b) != "hello" {
			t.Errorf("ReadFile: %q %v", b, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reading a special file blocked")
	}
}
