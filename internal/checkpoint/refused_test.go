package checkpoint

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// A checkpoint lists the files a call changed, never those of a call that
// was refused or failed without writing: an Edit whose old_string is not
// there, a call the claude-code CLI refused after tandem allowed it (a hook
// of its own, the user, a failed apply: no PostToolUse comes). A call that
// failed after changing its file is listed, so a rewind can undo it.
func TestRefusedAndFailedCallsAreNotListed(t *testing.T) {
	w := newWorld(t, Config{})
	w.write("ok.txt", "ok1\n")
	w.write("missing.txt", "m1\n")
	w.write("cli-refused.txt", "r1\n")
	w.write("cli-failed-late.txt", "f1\n")
	w.tr.UseTools(func(name string) (tool.Tool, bool) {
		x, ok := w.tools[name]
		return x, ok
	})
	input := func(v map[string]any) json.RawMessage { b, _ := json.Marshal(v); return b }
	w.prompt("edits", func() {
		w.call("Read", map[string]any{"file_path": "missing.txt"})
		raw := input(map[string]any{"file_path": "missing.txt", "old_string": "not there", "new_string": "x"})
		res, err := w.tools["Edit"].Execute(w.ctx, tool.Call{ID: "e1", Name: "Edit", Input: raw, Env: w.env})
		if err == nil && !res.IsError || !strings.Contains(res.Content, "not found") {
			t.Fatalf("the Edit of a missing old_string worked: %s", res.Content)
		}
		// The claude-code runtime: allowed, then refused by the CLI.
		w.tr.BeforeTool(w.ctx, "Write", input(map[string]any{"file_path": "cli-refused.txt", "content": "r2\n"}))
		w.tr.BeforeTool(w.ctx, "Write", input(map[string]any{"file_path": "cli-new.txt", "content": "n\n"}))
		// Allowed, and the file changed though no success was reported.
		w.tr.BeforeTool(w.ctx, "Write", input(map[string]any{"file_path": "cli-failed-late.txt", "content": "f2\n"}))
		w.write("cli-failed-late.txt", "half\n")
		w.call("Read", map[string]any{"file_path": "ok.txt"})
		w.call("Edit", map[string]any{"file_path": "ok.txt", "old_string": "ok1", "new_string": "ok2"})
	})
	cps := w.checkpoints()
	if len(cps) != 1 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	want := map[string]string{"ok.txt": "saved", "cli-failed-late.txt": "saved"}
	if got := states(cps[0], w.work); !reflect.DeepEqual(got, want) {
		t.Errorf("checkpoint files %v, want %v", got, want)
	}
	if _, err := w.svc.Rewind(w.ctx, w.id, 1, RewindOptions{}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"ok.txt": "ok1\n", "cli-failed-late.txt": "f1\n", "missing.txt": "m1\n", "cli-refused.txt": "r1\n"} {
		if got, _ := w.read(rel); got != want {
			t.Errorf("%s after the rewind = %q, want %q", rel, got, want)
		}
	}
}
