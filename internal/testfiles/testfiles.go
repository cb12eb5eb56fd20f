// Package testfiles holds the set-up every package's tests share: the
// files they write (one helper instead of a writeFile in each) and the
// scripted model server they start. Imported from _test.go
// files only (internal/layers_test.go).
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates path (and the folders on the way) holding content, mode
// 0644, and returns path. A failure ends the test.
func Write(t testing.TB, path, content string) string {
	t.Helper()
	return WriteMode(t, path, content, 0o644)
}

// WriteMode is Write with the file's mode.
func WriteMode(t testing.TB, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// Tree writes files, slash-separated paths relative to root, with their
// contents.
func Tree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		Write(t, filepath.Join(root, filepath.FromSlash(name)), content)
	}
}
