package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// editorFiles is a client with unsaved buffers: reads see the buffer,
// writes replace it and leave the disk alone.
type editorFiles struct {
	mu      sync.Mutex
	buffers map[string]string
	writes  []string
}

func (e *editorFiles) ReadFile(_ context.Context, path string) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return []byte(e.buffers[path]), nil
}

func (e *editorFiles) WriteFile(_ context.Context, path string, data []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buffers[path] = string(data)
	e.writes = append(e.writes, path)
	return nil
}

// With the session's Files set, Read shows the client's buffer and Edit
// changes it through the client; the disk is not written.
func TestFileToolsUseTheSessionsFiles(t *testing.T) {
	env := newTestEnv(t)
	p := writeFile(t, filepath.Join(env.WorkDir, "main.go"), "on disk\n")
	ed := &editorFiles{buffers: map[string]string{canonical(p): "unsaved buffer\n"}}
	env.Files = ed
	if res := run(t, NewRead(), env, map[string]any{"file_path": p}); res.IsError || !strings.Contains(res.Content, "unsaved buffer") {
		t.Fatalf("Read: %+v", res)
	}
	res := run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "unsaved", "new_string": "edited"})
	if res.IsError {
		t.Fatalf("Edit: %+v", res)
	}
	if got := ed.buffers[canonical(p)]; got != "edited buffer\n" || len(ed.writes) != 1 {
		t.Errorf("buffer %q after %d writes", got, len(ed.writes))
	}
	if got, _ := os.ReadFile(p); string(got) != "on disk\n" {
		t.Errorf("the disk was written: %q", got)
	}
	// The next edit needs no Read: the tracker knows what was written.
	if res := run(t, NewMultiEdit(), env, map[string]any{"file_path": p, "edits": []any{map[string]any{"old_string": "edited", "new_string": "final"}}}); res.IsError {
		t.Fatalf("MultiEdit: %+v", res)
	}
	if res := run(t, NewWrite(), env, map[string]any{"file_path": p, "content": "whole\n"}); res.IsError || ed.buffers[canonical(p)] != "whole\n" {
		t.Fatalf("Write: %+v %q", res, ed.buffers[canonical(p)])
	}
}
