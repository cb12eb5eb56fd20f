package regular

import (
	"errors"
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
	case <-time.After(15 * time.Second):
		t.Fatal("reading a special file blocked")
	}
}

// TestReadFileWhole checks ReadFile returns every byte whatever the size,
// including files whose reported size is 0 although they have content.
func TestReadFileWhole(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 4096, 65536, 1<<20 + 3} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte('a' + i%26)
		}
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || string(got) != string(want) {
			t.Fatalf("size %d: got %d bytes, err %v", n, len(got), err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v, want a not-exist error", err)
	}
	if got, err := ReadFile("/proc/self/status"); err == nil && len(got) == 0 {
		t.Fatal("/proc/self/status (size 0 on stat) read as empty")
	}
	if _, err := ReadFile(dir); !IsNotRegular(err) {
		t.Fatalf("folder: %v, want NotRegularError", err)
	}
}

// TestReadFileReusing reads into the buffer given when it is big enough
// and still returns whole files when it is not.
func TestReadFileReusing(t *testing.T) {
	dir := t.TempDir()
	small, large := filepath.Join(dir, "s"), filepath.Join(dir, "l")
	os.WriteFile(small, []byte("abc"), 0o644)
	os.WriteFile(large, make([]byte, 10000), 0o644)
	buf := make([]byte, 0, 100)
	got, err := ReadFileReusing(small, buf, 100)
	if err != nil || string(got) != "abc" || &got[:1][0] != &buf[:1][0] {
		t.Fatalf("small: %q, %v (reused: %v)", got, err, err == nil && &got[:1][0] == &buf[:1][0])
	}
	if got, err = ReadFileReusing(large, buf, 10000); err != nil || len(got) != 10000 {
		t.Fatalf("large: %d bytes, %v", len(got), err)
	}
	if _, err = ReadFileReusing(large, buf, 9999); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the bound: %v, want ErrTooLarge", err)
	}
}
