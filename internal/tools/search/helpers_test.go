package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// writeTree creates files (path → content) under root, giving each a
// distinct mtime in map-independent order: later entries are newer.
func writeTree(t *testing.T, root string, files [][2]string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f[0]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func testEnv(t *testing.T) *tool.Env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return tool.NewEnv("s", dir, nil, "")
}

func exec1(t *testing.T, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	raw, ok := input.(string)
	if !ok {
		b, _ := json.Marshal(input)
		raw = string(b)
	}
	res, err := tl.Execute(context.Background(), tool.Call{ID: "c1", Name: tl.Name(), Input: json.RawMessage(raw), Env: env})
	if err != nil {
		t.Fatalf("Go error: %v", err)
	}
	return res
}

// sampleTree has ignore rules at two levels, a negation, a hidden file,
// a binary file and several languages.
var sampleTree = [][2]string{
	{".gitignore", "build/\n*.log\n!keep.log\n"},
	{"main.go", "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},
	{"util.go", "package main\n\n// Helper does things.\nfunc Helper() int {\n\treturn 42\n}\n"},
	{"build/out.go", "package build // func ignored\n"},
	{"debug.log", "func in a log\n"},
	{"keep.log", "func kept log\n"},
	{".hidden/conf.go", "package hidden\nfunc Hidden() {}\n"},
	{"pkg/.gitignore", "gen_*.go\n"},
	{"pkg/gen_x.go", "package pkg\nfunc Generated() {}\n"},
	{"pkg/real.go", "package pkg\n\nfunc Real() {\n\t// TODO: more\n}\n\nfunc Other() {}\n"},
	{"scripts/run.py", "def func_py():\n    return 'FUNC'\n"},
	{"web/app.js", "function app() { return 1 }\n"},
	{"bin/blob.dat", "func\x00binary\n"},
	{"docs/readme.md", "Nothing to see.\nfunc mentioned in docs\n"},
}
