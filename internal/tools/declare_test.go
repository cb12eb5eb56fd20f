package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// Every built-in tool says what it is (tool.Kinded) and names its calls
// (tool.Summarizer): front ends read these, not tables of names.
func TestBuiltinsDescribeThemselves(t *testing.T) {
	for _, tl := range builtins(Options{}, nil) {
		if _, ok := tl.(tool.Kinded); !ok {
			t.Errorf("%s declares no tool.Kind", tl.Name())
		}
		if s := tool.SummaryOf(tl, json.RawMessage(`{}`)); s == "" {
			t.Errorf("%s declares no summary", tl.Name())
		}
	}
}

// A built-in tool whose call changes a file must declare that write
// (tool.FileAccessor) for the path it changed, and say it edits
// (tool.KindEdit): the permission engine's boundary checks and the
// checkpoint recorder see only what a tool declares. Each tool runs for
// real on a plausible input built from its schema in a scratch folder, so
// a new file-writing tool is caught whatever its name. Commands (Bash and
// its jobs, KindExecute) are left out: what they write is judged by the
// shell validator and found by the checkpoint's workspace scan.
func TestFileWritersDeclareTheirPaths(t *testing.T) {
	writers := 0
	for _, tl := range Default(Options{}) {
		if tool.KindOf(tl) == tool.KindExecute {
			continue
		}
		dir := t.TempDir()
		target := filepath.Join(dir, "target.txt")
		if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env := tool.NewEnv("s", dir, nil, filepath.Join(t.TempDir(), "data"))
		read, _ := Lookup()("Read")
		if _, err := read.Execute(context.Background(), tool.Call{ID: "r", Name: "Read", Input: json.RawMessage(`{"file_path":` + quote(target) + `}`), Env: env}); err != nil {
			t.Fatal(err)
		}
		input := probeInput(t, tl, target)
		before := snapshot(t, dir)
		res, err := tl.Execute(context.Background(), tool.Call{ID: "c", Name: tl.Name(), Input: input, Env: env})
		if err != nil {
			t.Fatalf("%s(%s): %v", tl.Name(), input, err)
		}
		changed := changedPaths(before, snapshot(t, dir))
		if len(changed) == 0 {
			if tool.KindOf(tl) == tool.KindEdit {
				t.Errorf("%s says it edits but changed nothing for %s (result: %s); give the probe an input it accepts", tl.Name(), input, res.Content)
			}
			continue
		}
		writers++
		if k := tool.KindOf(tl); k != tool.KindEdit {
			t.Errorf("%s changed %v but declares kind %q, not %q", tl.Name(), changed, k, tool.KindEdit)
		}
		acc, ok := tool.AccessorOf(tl)
		if !ok {
			t.Errorf("%s changed %v but declares no paths (implement tool.FileAccessor)", tl.Name(), changed)
			continue
		}
		declared, err := acc.FileAccess(input)
		if err != nil {
			t.Errorf("%s: FileAccess(%s): %v", tl.Name(), input, err)
		}
		for _, p := range changed {
			if !declaresWrite(declared, dir, p) {
				t.Errorf("%s changed %s but declares %+v (no write of it)", tl.Name(), p, declared)
			}
		}
	}
	if writers == 0 {
		t.Fatal("no built-in tool changed a file: the probe inputs no longer fit the tools")
	}
}

// probeInput fills tl's schema with values a file tool acts on: every
// path at target, its text "old" replaced by "new".
func probeInput(t *testing.T, tl tool.Tool, target string) json.RawMessage {
	t.Helper()
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
		t.Fatalf("%s: schema: %v", tl.Name(), err)
	}
	in := map[string]any{}
	for k, p := range schema.Properties {
		switch {
		case p.Type == "string" && strings.Contains(k, "path"):
			in[k] = target
		case k == "content":
			in[k] = "new\n"
		case k == "old_string":
			in[k] = "old"
		case k == "new_string":
			in[k] = "new"
		case k == "pattern":
			in[k] = "target*"
		case k == "url":
			in[k] = "http://127.0.0.1:1/" // nothing listens; a fetch fails at once
		case k == "edits":
			in[k] = []map[string]any{{"old_string": "old", "new_string": "new"}}
		case p.Type == "string":
			in[k] = "x"
		case p.Type == "array":
			in[k] = []any{}
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changedPaths(before, after map[string]string) []string {
	var out []string
	for p, c := range after {
		if b, ok := before[p]; !ok || b != c {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

func declaresWrite(declared []tool.Access, dir, p string) bool {
	for _, a := range declared {
		abs := a.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, abs)
		}
		if a.Write && filepath.Clean(abs) == p {
			return true
		}
	}
	return false
}
