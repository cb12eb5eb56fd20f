package checkpoint

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// A shell command's changes, as the scan found them, reach a wrapper
// outside through the call's context (the language servers' diagnostics
// read them): changed and created files, not removed ones.
func TestScanReportsChangedFiles(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("a.txt", "a1\n")
	w.write("gone.txt", "g\n")
	w.write("same.txt", "s\n")
	var got []string
	w.prompt("one", func() {
		ctx, changes := tool.WithChanges(w.ctx)
		raw, _ := json.Marshal(map[string]any{"command": "echo a2 > a.txt; rm gone.txt; mkdir d; echo n > d/new.txt"})
		res, err := w.tools["Bash"].Execute(ctx, tool.Call{ID: "c", Name: "Bash", Input: raw, Env: w.env})
		if err != nil || res.IsError {
			t.Fatalf("%v %s", err, res.Content)
		}
		got = changes.Paths()
	})
	want := []string{filepath.Join(w.work, "a.txt"), filepath.Join(w.work, "d", "new.txt")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed %v, want %v", got, want)
	}
}
