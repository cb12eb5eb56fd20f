package checkpoint

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
)

// Files changed by Write, Edit and MultiEdit and by shell commands
// (created, modified, deleted, binary) are recorded with their prior
// state and all come back with a rewind to the prompt.
func TestRewindRestoresToolAndShellChanges(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(map[bool]string{true: "watched", false: "stat scans"}[watch], func(t *testing.T) {
			testRewindRestores(t, watch)
		})
	}
}

func testRewindRestores(t *testing.T, watch bool) {
	w := newWorld(t, Config{})
	w.tr.noWatch = !watch
	w.write("a.txt", "a1\n")
	w.write("keep.txt", "keep\n")
	w.write("gone.txt", "gone\n")
	bin := []byte{0, 1, 2, 0xff, 0xfe, 0, '\n', 0x80}
	if err := os.WriteFile(filepath.Join(w.work, "img.bin"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	w.prompt("first", func() {
		w.call("Write", map[string]any{"file_path": "new.txt", "content": "n1\n"})
	})
	cp2 := w.prompt("second", func() {
		w.call("Read", map[string]any{"file_path": "a.txt"})
		w.call("Edit", map[string]any{"file_path": "a.txt", "old_string": "a1", "new_string": "a2"})
		w.call("MultiEdit", map[string]any{"file_path": "a.txt", "edits": []map[string]any{{"old_string": "a2", "new_string": "a3"}}})
		w.call("Write", map[string]any{"file_path": "new.txt", "content": "n2\n"})
		w.call("Bash", map[string]any{"command": "printf 'K' >> keep.txt; rm gone.txt; mkdir -p d; echo made > d/made.txt; printf '\\001' > img.bin"})
	})
	w.prompt("third", func() {
		w.call("Bash", map[string]any{"command": "echo later > keep.txt"})
	})

	cps := w.checkpoints()
	if len(cps) != 3 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	want := map[string]string{"a.txt": "saved", "new.txt": "saved", "keep.txt": "saved", "gone.txt": "saved", "d/made.txt": "absent", "img.bin": "saved"}
	if got := states(cps[1], w.work); !reflect.DeepEqual(got, want) {
		t.Errorf("checkpoint 2 files %v, want %v", got, want)
	}
	if got := states(cps[0], w.work); !reflect.DeepEqual(got, map[string]string{"new.txt": "absent"}) {
		t.Errorf("checkpoint 1 files %v", got)
	}

	res, err := w.svc.Rewind(w.ctx, w.id, cp2.Number, RewindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for rel, wantContent := range map[string]string{"a.txt": "a1\n", "new.txt": "n1\n", "keep.txt": "keep\n", "gone.txt": "gone\n"} {
		if got, _ := w.read(rel); got != wantContent {
			t.Errorf("%s = %q, want %q", rel, got, wantContent)
		}
	}
	if _, ok := w.read("d/made.txt"); ok {
		t.Error("d/made.txt was created after the checkpoint and should be gone")
	}
	got, _ := os.ReadFile(filepath.Join(w.work, "img.bin"))
	if !bytes.Equal(got, bin) {
		t.Errorf("img.bin = %x", got)
	}
	if fi, _ := os.Stat(filepath.Join(w.work, "img.bin")); fi.Mode().Perm() != 0o755 {
		t.Errorf("img.bin mode %v, want 0755", fi.Mode())
	}
	if res.Messages != 4 || len(res.Removed) != 1 {
		t.Errorf("result %+v", res)
	}
	msgs, _ := w.st.Messages(w.ctx, w.id)
	if len(msgs) != 2 || msgs[0].PlainText() != "first" {
		t.Errorf("conversation after rewind: %d messages", len(msgs))
	}
	if n, _ := w.st.RewoundMessageCount(w.ctx, w.id); n != 4 {
		t.Errorf("%d messages kept aside, want 4", n)
	}
	if cps := w.checkpoints(); len(cps) != 1 {
		t.Errorf("checkpoints after rewind: %d, want 1", len(cps))
	}
	// The next prompt is number 2 again and its position follows the kept messages.
	cp := w.prompt("again", func() {})
	if cp.Number != 2 || cp.Position != 3 {
		t.Errorf("next checkpoint %+v", cp)
	}
}

// A file changed outside tandem after the checkpoint stops the rewind,
// which names it and changes nothing; --force overwrites it.
func TestRewindRefusesOutsideChangeWithoutForce(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.write("b.txt", "b1\n")
	w.prompt("change", func() {
		w.call("Bash", map[string]any{"command": "echo a2 > a.txt; echo b2 > b.txt"})
	})
	w.write("b.txt", "user edit\n")
	_, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || !strings.HasSuffix(ce.Paths[0], "b.txt") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v", err)
	}
	if got, _ := w.read("a.txt"); got != "a2\n" {
		t.Errorf("a refused rewind restored a.txt")
	}
	if _, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if a, _ := w.read("a.txt"); a != "a1\n" {
		t.Errorf("a.txt = %q", a)
	}
	if b, _ := w.read("b.txt"); b != "b1\n" {
		t.Errorf("b.txt = %q", b)
	}
}

// A rewind stopped midway (some files already back) runs again without
// --force: restored files count as unchanged, not as outside changes.
func TestRewindRerunAfterPartialRestore(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.write("b.txt", "b1\n")
	w.prompt("change", func() {
		w.call("Bash", map[string]any{"command": "echo a2 > a.txt; echo b2 > b.txt; echo c > c.txt"})
	})
	w.write("a.txt", "a1\n") // as if the first rewind had restored a.txt and was killed
	res, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unchanged) != 1 || len(res.Restored) != 1 || len(res.Removed) != 1 {
		t.Errorf("result %+v", res)
	}
	if b, _ := w.read("b.txt"); b != "b1\n" {
		t.Errorf("b.txt = %q", b)
	}
}

// --files-only keeps the conversation and the checkpoints; a later
// --conversation-only leaves the files alone.
func TestRewindFilesOnlyAndConversationOnly(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.prompt("one", func() { w.call("Bash", map[string]any{"command": "echo a2 > a.txt"}) })
	w.prompt("two", func() { w.call("Bash", map[string]any{"command": "echo a3 > a.txt"}) })
	if _, err := w.svc.Rewind(w.ctx, w.id, 2, RewindOptions{FilesOnly: true}); err != nil {
		t.Fatal(err)
	}
	if a, _ := w.read("a.txt"); a != "a2\n" {
		t.Errorf("a.txt = %q", a)
	}
	if msgs, _ := w.st.Messages(w.ctx, w.id); len(msgs) != 4 {
		t.Errorf("files-only rewind changed the conversation: %d messages", len(msgs))
	}
	// The files-only rewind is what tandem left: a further rewind needs no force.
	if _, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{FilesOnly: true}); err != nil {
		t.Fatal(err)
	}
	if a, _ := w.read("a.txt"); a != "a1\n" {
		t.Errorf("a.txt = %q", a)
	}
	w.write("a.txt", "mine\n")
	if _, err := w.svc.Rewind(w.ctx, w.id, 2, RewindOptions{ConversationOnly: true}); err != nil {
		t.Fatal(err)
	}
	if a, _ := w.read("a.txt"); a != "mine\n" {
		t.Errorf("conversation-only rewind touched a.txt: %q", a)
	}
	if msgs, _ := w.st.Messages(w.ctx, w.id); len(msgs) != 2 {
		t.Errorf("conversation after rewind: %d messages", len(msgs))
	}
	if _, err := w.svc.Rewind(w.ctx, w.id, 5, RewindOptions{}); err == nil || !strings.Contains(err.Error(), "no checkpoint 5") {
		t.Errorf("unknown checkpoint: %v", err)
	}
}

// The scan skips .gitignore'd paths, default folders (node_modules) and
// names a file over the size limit without saving it.
func TestScanIgnoresAndSizeLimit(t *testing.T) {
	w := newWorld(t, Config{MaxFileBytes: 100, Ignore: []string{"*.log"}})
	w.write(".gitignore", "out/\n*.tmp\n!keep.tmp\n")
	w.write("sub/.gitignore", "local.txt\n")
	w.write("big.dat", strings.Repeat("x", 50))
	w.prompt("scan", func() {
		w.call("Bash", map[string]any{"command": strings.Join([]string{
			"mkdir -p out node_modules/p sub", "echo 1 > out/o.txt", "echo 1 > node_modules/p/i.js",
			"echo 1 > x.tmp", "echo 1 > keep.tmp", "echo 1 > sub/local.txt", "echo 1 > local.txt",
			"echo 1 > run.log", "head -c 500 /dev/zero > big.dat"}, " && ")})
	})
	got := states(w.checkpoints()[0], w.work)
	want := map[string]string{"keep.tmp": "absent", "local.txt": "absent", "big.dat": "saved"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	w.prompt("grow", func() {
		w.call("Bash", map[string]any{"command": "echo more >> big.dat"})
	})
	if got := states(w.checkpoints()[1], w.work); got["big.dat"] != store.FileTooLarge {
		t.Errorf("big.dat recorded as %q, want too_large", got["big.dat"])
	}
	res, err := w.svc.Rewind(w.ctx, w.id, 2, RewindOptions{})
	if err != nil || len(res.Skipped) != 1 {
		t.Errorf("rewind over a too large file: %+v %v", res, err)
	}
	// A file that grew past the limit in a turn goes back to its saved
	// content without --force: tandem knows it left it as it is.
	w.write("grow.txt", "small\n")
	cp := w.prompt("grow past the limit", func() {
		w.call("Bash", map[string]any{"command": "head -c 500 /dev/zero >> grow.txt"})
	})
	if _, err := w.svc.Rewind(w.ctx, w.id, cp.Number, RewindOptions{}); err != nil {
		t.Fatalf("rewind of a file grown past the limit: %v", err)
	}
	if got, _ := w.read("grow.txt"); got != "small\n" {
		t.Errorf("grow.txt = %q", got)
	}
}

// Only the newest checkpoints are kept; deleting the session removes its
// baseline and the snapshots nothing else refers to.
func TestRetentionAndDeleteCollectsSnapshots(t *testing.T) {
	w := newWorld(t, Config{Keep: 2})
	w.write("a.txt", "start\n")
	for i := 0; i < 4; i++ {
		w.prompt("p", func() { w.call("Bash", map[string]any{"command": "echo $RANDOM$RANDOM >> a.txt"}) })
	}
	cps := w.checkpoints()
	if len(cps) != 2 || cps[0].Number != 3 {
		t.Fatalf("kept %d checkpoints, first %d", len(cps), cps[0].Number)
	}
	blobDir := filepath.Join(w.data, "checkpoints", "blobs")
	if n := countFiles(t, blobDir); n == 0 {
		t.Fatal("no snapshots saved")
	}
	if err := w.svc.DeleteSession(w.ctx, w.id); err != nil {
		t.Fatal(err)
	}
	if n := countFiles(t, blobDir); n != 0 {
		t.Errorf("%d snapshots left after deleting the only session", n)
	}
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// Folders created, deleted and moved by a shell command are seen, with a
// watcher as with stat scans.
func TestShellFolderChanges(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(map[bool]string{true: "watched", false: "stat scans"}[watch], func(t *testing.T) {
			w := newWorld(t, Config{})
			w.tr.noWatch = !watch
			w.write("old/a.txt", "a\n")
			w.write("old/deep/b.txt", "b\n")
			w.write("doomed/c.txt", "c\n")
			w.prompt("warm up", func() { w.call("Bash", map[string]any{"command": "true"}) })
			if watch && (w.tr.w == nil || !w.tr.watched) {
				t.Skip("no inotify here")
			}
			w.prompt("folders", func() {
				w.call("Bash", map[string]any{"command": "mv old moved && rm -r doomed && mkdir -p fresh/x && echo n > fresh/x/n.txt && echo m >> moved/deep/b.txt"})
			})
			got := states(w.checkpoints()[1], w.work)
			want := map[string]string{"old/a.txt": "saved", "old/deep/b.txt": "saved", "doomed/c.txt": "saved",
				"moved/a.txt": "absent", "moved/deep/b.txt": "absent", "fresh/x/n.txt": "absent"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("recorded %v, want %v", got, want)
			}
			if _, err := w.svc.Rewind(w.ctx, w.id, 2, RewindOptions{}); err != nil {
				t.Fatal(err)
			}
			for rel, content := range map[string]string{"old/a.txt": "a\n", "old/deep/b.txt": "b\n", "doomed/c.txt": "c\n"} {
				if got, _ := w.read(rel); got != content {
					t.Errorf("%s = %q", rel, got)
				}
			}
			for _, rel := range []string{"moved/a.txt", "moved/deep/b.txt", "fresh/x/n.txt"} {
				if _, ok := w.read(rel); ok {
					t.Errorf("%s still there", rel)
				}
			}
		})
	}
}

// A session deleted without the service (another front end) leaves a
// baseline that the next collection removes with its snapshots.
func TestCollectRemovesOrphanBaselines(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "only here\n")
	w.prompt("p", func() { w.call("Bash", map[string]any{"command": "true"}) })
	w.tr.Close()
	if err := w.st.DeleteSession(w.ctx, w.id); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Collect(w.ctx); err != nil {
		t.Fatal(err)
	}
	// Only the marker that hides the folder from searches stays.
	if n := countFiles(t, filepath.Join(w.data, "checkpoints")); n != 1 {
		t.Errorf("%d files left under checkpoints/ after collecting an orphan, want the .gitignore alone", n)
	}
	if b, err := os.ReadFile(filepath.Join(w.data, "checkpoints", ".gitignore")); err != nil || !strings.HasSuffix(string(b), "\n*\n") {
		t.Errorf("search marker: %q %v", b, err)
	}
}
