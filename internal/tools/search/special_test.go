package search

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Grep (both engines) and Glob never wait on a FIFO: one given as the path
// is refused by name, FIFOs met while walking (even one named .gitignore)
// are skipped.
func TestSearchSkipsSpecialFiles(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, [][2]string{{"a.txt", "needle\n"}})
	for _, name := range []string{"pipe.txt", ".gitignore", "sub/.gitignore"} {
		p := filepath.Join(env.WorkDir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip(err)
		}
	}
	engines := map[string]*Grep{"go": NewGrepWith(GrepOptions{DisableRipgrep: true}), "default": NewGrep()}
	for name, g := range engines {
		done := make(chan struct{})
		go func() {
			defer close(done)
			res := exec1(t, g, env, map[string]any{"pattern": "needle", "output_mode": "content"})
			if res.IsError || !strings.Contains(res.Content, "needle") {
				t.Errorf("%s: walk: %+v", name, res)
			}
			res = exec1(t, g, env, map[string]any{"pattern": "needle", "path": "pipe.txt"})
			if !res.IsError || !strings.Contains(res.Content, "named pipe") || !strings.Contains(res.Content, "pipe.txt") {
				t.Errorf("%s: FIFO path: %+v", name, res)
			}
			res = exec1(t, NewGlob(), env, map[string]any{"pattern": "**/*"})
			if res.IsError {
				t.Errorf("glob: %+v", res)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: search blocked on a FIFO", name)
		}
	}
}
