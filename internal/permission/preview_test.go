package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
)

// The diff the user approves is the diff Edit applies, for every matcher
// stage of the tolerant cascade and for CRLF files.
func TestEditPreviewIsWhatIsWritten(t *testing.T) {
	cases := []struct{ name, content, old, new, matcher string }{
		{"exact", "old content here\n", "old content", "new content", "exact"},
		{"crlf", "a\r\nb\r\nc\r\n", "b", "B", "exact"},
		{"crlf tolerant", "func f() {\r\n\tif x {\r\n\t\treturn 1\r\n\t}\r\n}\r\n", "if x {\n\treturn 1\n}", "if x {\n\treturn 2\n}", "trimmed-lines"},
		{"trimmed-lines", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "if x {\n\treturn 1\n}", "if x {\n\treturn 2\n}", "trimmed-lines"},
		{"block-anchors", "def f():\n    total = a + b\n    return total\n", "def f():\n    total = a+b\n    return total", "def f():\n    total = a - b\n    return total", "block-anchors"},
		{"whitespace-normalized", "const   x    =     5;\n", "const x = 5;", "const x = 6;", "whitespace-normalized"},
		{"indentation-flexible", "if a {\n    x()\n  y()\n}\nif b {\n    x()\n    y()\n}\n", "x()\ny()", "z()", "indentation-flexible"},
		{"escape-normalized", "msg := \"It's working\"\n", "msg := \\\"It's working\\\"", "msg := \\\"done\\\"", "escape-normalized"},
		{"trimmed-boundaries", "x\nvalue = 42\ny", "\n\n  value = 42  \n\n", "\n\n  value = 43  \n\n", "trimmed-boundaries"},
		{"context-aware", "func run() {\n\tstart()\n\tstep(1)\n\tstop()\n}\n", "func run() {\n\tstart()\n\tcompletely different call here(xyz)\n\tstop()\n}", "func run() {\n\tstart()\n\tstop()\n}", "context-aware"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work, _ := filepath.EvalSymlinks(t.TempDir())
			path := filepath.Join(work, "f.txt")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			input, _ := json.Marshal(map[string]any{"file_path": path, "old_string": c.old, "new_string": c.new})
			a := &recordingAsker{}
			e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: a, ProtectedPaths: []string{path}})
			if _, err := e.Check(context.Background(), Request{Tool: "Edit", Input: input}); err != nil || len(a.asked) != 1 {
				t.Fatalf("no ask: %v %d", err, len(a.asked))
			}
			preview := a.asked[0].Diff
			planned, _, err := fs.PlanEdit(path, c.content, c.old, c.new, false)
			if err != nil {
				t.Fatal(err)
			}

			env := tool.NewEnv("s", work, nil, filepath.Join(work, ".data"))
			call := func(tl tool.Tool, in json.RawMessage) tool.Result {
				res, err := tl.Execute(context.Background(), tool.Call{ID: "c", Name: tl.Name(), Input: in, Env: env})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %s", tl.Name(), err, res.Content)
				}
				return res
			}
			call(fs.NewRead(), json.RawMessage(`{"file_path":"`+path+`"}`))
			res := call(fs.NewEdit(), input)
			if m := res.Meta["matcher"]; m != c.matcher {
				t.Fatalf("matcher %v, want %s", m, c.matcher)
			}
			written, _ := os.ReadFile(path)
			if preview == "" || preview != res.Diff {
				t.Errorf("approved diff:\n%s\napplied diff:\n%s", preview, res.Diff)
			}
			if planned != string(written) {
				t.Errorf("planned %q, written %q", planned, written)
			}
		})
	}
}
