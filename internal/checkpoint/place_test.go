package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder that became a symbolic link after the checkpoint is not
// followed: `rm -rf sub && ln -s ../outside sub` must not let a rewind
// create, overwrite or delete files in outside, even with --force. The
// targets are left alone and reported.
func TestRewindNeverWritesThroughASymlinkedFolder(t *testing.T) {
	w := newWorld(t, Config{})
	outside := t.TempDir()
	w.write("sub/a.txt", "a1\n")
	w.write("sub/keep.txt", "k1\n")
	w.write("top.txt", "t1\n")
	w.prompt("change", func() {
		// a.txt deleted (a rewind would create it), new.txt created (a
		// rewind would delete it), keep.txt changed (would be overwritten).
		w.call("Bash", map[string]any{"command": "rm sub/a.txt && echo new > sub/new.txt && echo k2 > sub/keep.txt && echo t2 > top.txt"})
	})
	// The folder goes, a link to a folder outside takes its place, holding
	// files of the same names.
	if err := os.RemoveAll(filepath.Join(w.work, "sub")); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"new.txt": "outside new\n", "keep.txt": "outside keep\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(w.work, "sub")); err != nil {
		t.Fatal(err)
	}
	res, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{Force: true, FilesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "a.txt")); err == nil {
		t.Error("the rewind created outside/a.txt through the link")
	}
	for name, want := range map[string]string{"new.txt": "outside new\n", "keep.txt": "outside keep\n"} {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
			t.Errorf("outside/%s = %q, %v: the rewind reached through the link", name, b, err)
		}
	}
	if got := strings.Join(res.Summarize(w.work).Outside, " "); got != "sub/a.txt sub/keep.txt sub/new.txt" {
		t.Errorf("reported outside: %q", got)
	}
	if got, _ := w.read("top.txt"); got != "t1\n" {
		t.Errorf("top.txt = %q: the rest of the rewind did not run", got)
	}
}

// A file checkpointed before the turn that is a folder now: the rewind
// stops before changing anything, names the folder and the fix, with or
// without --force (it never deletes what it did not record).
func TestRewindNamesAFolderInTheWay(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.write("b.txt", "b1\n")
	w.prompt("change", func() {
		w.call("Bash", map[string]any{"command": "echo a2 > a.txt && echo b2 > b.txt"})
	})
	if err := os.Remove(filepath.Join(w.work, "a.txt")); err != nil {
		t.Fatal(err)
	}
	w.write("a.txt/inside.txt", "the user's\n")
	for _, force := range []bool{false, true} {
		_, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{Force: force})
		var be *BlockedError
		if !errors.As(err, &be) || len(be.Paths()) != 1 || be.Paths()[0] != filepath.Join(w.work, "a.txt") ||
			!strings.Contains(err.Error(), "is a folder") || !strings.Contains(err.Error(), "mv ") {
			t.Fatalf("force=%v: err = %v", force, err)
		}
	}
	if got, _ := w.read("b.txt"); got != "b2\n" {
		t.Errorf("a blocked rewind changed b.txt")
	}
	if got, _ := w.read("a.txt/inside.txt"); got != "the user's\n" {
		t.Errorf("the folder's content is gone")
	}
	// Once the folder is moved aside, the rewind finishes.
	if err := os.Rename(filepath.Join(w.work, "a.txt"), filepath.Join(w.work, "aside")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.read("a.txt"); got != "a1\n" {
		t.Errorf("a.txt = %q", got)
	}
}
