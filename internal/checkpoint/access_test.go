package checkpoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/claudecode"
)

// A call tandem has no tool object for (the Claude Code CLI's own
// NotebookEdit under the claude-code runtime) is recorded by what the
// session's lookup declares it writes, not by a table of names here; a
// tool nobody declares anything for is not recorded as a file change.
func TestTrackerRecordsDeclaredWritesByName(t *testing.T) {
	w := newWorld(t, Config{NoWatch: true})
	w.tr.UseTools(claudecode.CLITool)
	w.write("nb.ipynb", "old")
	nb := filepath.Join(w.work, "nb.ipynb")
	w.prompt("edit the notebook", func() {
		in, _ := json.Marshal(map[string]string{"notebook_path": nb})
		w.tr.BeforeTool(w.ctx, "NotebookEdit", in)
		w.tr.mu.Lock()
		_, saved := w.tr.pending[nb]
		w.tr.mu.Unlock()
		if !saved {
			t.Error("the notebook the call declares was not saved before the call ran")
		}
		if err := os.WriteFile(nb, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		w.tr.AfterTool(w.ctx, "NotebookEdit", in)
	})
	cps := w.checkpoints()
	if len(cps) == 0 {
		t.Fatal("no checkpoint")
	}
	if _, ok := states(cps[len(cps)-1], w.work)["nb.ipynb"]; !ok {
		t.Errorf("the notebook the call declared was not recorded: %+v", cps[len(cps)-1].Files)
	}
}
