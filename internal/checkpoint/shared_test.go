package checkpoint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// On PostgreSQL a checkpoint's contents are in the database: another
// machine (another data folder, no local copy) rewinds the files, and
// collecting keeps what checkpoints refer to.
func TestRewindFromSharedStore(t *testing.T) {
	w := newWorldOn(t, Config{}, pg.Database(t))
	w.write("a.txt", "before\n")
	cp := w.prompt("change it", func() {
		w.call("Read", map[string]any{"file_path": "a.txt"})
		w.call("Edit", map[string]any{"file_path": "a.txt", "old_string": "before", "new_string": "after"})
	})
	// The other machine: the same database, an empty data folder.
	other := NewService(w.st, t.TempDir(), Options{})
	if _, err := other.Collect(w.ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(w.data, "checkpoints", "blobs")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Rewind(w.ctx, w.id, cp.Number, RewindOptions{FilesOnly: true}); err != nil {
		t.Fatalf("rewind on another machine: %v", err)
	}
	if got, _ := w.read("a.txt"); got != "before\n" {
		t.Fatalf("a.txt = %q after the rewind", got)
	}
}
