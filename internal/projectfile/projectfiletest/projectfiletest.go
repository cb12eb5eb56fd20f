// Package projectfiletest builds the hostile project files every reader of
// a repository's files must refuse (a link out of the repository, a FIFO, a
// file over the size cap) and waits on a load with a deadline, so that each
// package's test states only what it loads and what it expects. Import it
// from _test.go files only.
package projectfiletest

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// The words the refusal of each hostile file must contain; they key the
// map Cases returns.
const (
	Outside   = "outside the repository"
	NamedPipe = "named pipe"
	TooLarge  = "larger than"
)

// Cases returns, keyed by the words its refusal must contain, a function
// per hostile file: it creates path (and its folder) as a relative
// symbolic link to outside, as a FIFO, or as a regular file holding
// oversized. Any failure to create one fails t.
func Cases(t testing.TB, outside string, oversized []byte) map[string]func(path string) {
	t.Helper()
	return map[string]func(string){
		Outside: func(p string) {
			t.Helper()
			mkdir(t, p)
			rel, err := filepath.Rel(filepath.Dir(p), outside)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, p); err != nil {
				t.Fatal(err)
			}
		},
		NamedPipe: func(p string) {
			t.Helper()
			mkdir(t, p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		TooLarge: func(p string) {
			t.Helper()
			mkdir(t, p)
			if err := os.WriteFile(p, oversized, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// WriteFile writes data to path, creating its folder; a failure fails t.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	mkdir(t, path)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Within runs f on its own goroutine and fails t with "what blocked" if it
// has not returned after d: a read that opens a FIFO without O_NONBLOCK
// never returns. f must report through t.Error, not t.Fatal.
func Within(t testing.TB, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s blocked", what)
	}
}

// SameTwice fails t unless two loads give the same value and the same
// error: a parser of a repository's file must judge the same bytes the
// same way every time (the fuzz targets of every such parser).
func SameTwice[T any](t testing.TB, what string, load func() (T, error)) {
	t.Helper()
	v1, err1 := load()
	v2, err2 := load()
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) || !reflect.DeepEqual(v1, v2) {
		t.Fatalf("%s differs between two calls: %v / %v", what, err1, err2)
	}
}
