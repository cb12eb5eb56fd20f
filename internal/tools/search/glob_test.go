package search

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, sampleTree)
	abs := func(p string) string { return filepath.Join(env.WorkDir, p) }
	cases := []struct {
		name  string
		input map[string]any
		want  []string // in order
	}{
		{"recursive newest first", map[string]any{"pattern": "**/*.go"},
			[]string{abs("pkg/real.go"), abs(".hidden/conf.go"), abs("util.go"), abs("main.go")}},
		{"top level only", map[string]any{"pattern": "*.go"}, []string{abs("util.go"), abs("main.go")}},
		{"negated ignore keeps file", map[string]any{"pattern": "*.log"}, []string{abs("keep.log")}},
		{"literal prefix", map[string]any{"pattern": "pkg/*.go"}, []string{abs("pkg/real.go")}},
		{"path param", map[string]any{"pattern": "*", "path": "scripts"}, []string{abs("scripts/run.py")}},
		{"absolute pattern", map[string]any{"pattern": abs("web") + "/*.js"}, []string{abs("web/app.js")}},
		{"braces", map[string]any{"pattern": "**/*.{py,js}"}, []string{abs("web/app.js"), abs("scripts/run.py")}},
		{"no match", map[string]any{"pattern": "**/*.rs"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := exec1(t, NewGlob(), env, tc.input)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			want := strings.Join(tc.want, "\n")
			if tc.want == nil {
				want = "No files found"
			}
			if res.Content != want {
				t.Fatalf("got\n%s\nwant\n%s", res.Content, want)
			}
		})
	}
}

func TestGlobInvalidInput(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, [][2]string{{"a.txt", "x"}})
	cases := []struct{ name, input, want string }{
		{"missing pattern", `{}`, `"pattern" is missing`},
		{"bad pattern", `{"pattern": "[abc"}`, "not a valid glob"},
		{"missing path", `{"pattern": "*", "path": "nope"}`, "does not exist"},
		{"path is file", `{"pattern": "*", "path": "a.txt"}`, "is a file"},
		{"number pattern", `{"pattern": 3}`, "must be a string"},
		{"string input", `"*.go"`, "expected a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := exec1(t, NewGlob(), env, tc.input)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got %+v, want %q", res, tc.want)
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	env := testEnv(t)
	var files [][2]string
	for i := 0; i < 150; i++ {
		files = append(files, [2]string{fmt.Sprintf("d%d/f%03d.txt", i%7, i), "x"})
	}
	writeTree(t, env.WorkDir, files)
	res := exec1(t, NewGlob(), env, map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != globLimit+1 || !strings.Contains(lines[globLimit], "truncated") || res.Meta["truncated"] != true {
		t.Fatalf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if !strings.HasSuffix(lines[0], "f149.txt") {
		t.Fatalf("newest first violated: %s", lines[0])
	}
}

func TestGlobInsideGitRepoUsesParentIgnores(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, [][2]string{
		{".git/info/exclude", "secret.txt\n"},
		{".gitignore", "*.tmp\n"},
		{"sub/a.tmp", "x"},
		{"sub/b.txt", "x"},
		{"sub/secret.txt", "x"},
		{".git/config", "x"},
	})
	res := exec1(t, NewGlob(), env, map[string]any{"pattern": "**/*", "path": "sub"})
	if res.Content != filepath.Join(env.WorkDir, "sub/b.txt") {
		t.Fatalf("got %q", res.Content)
	}
	res = exec1(t, NewGlob(), env, map[string]any{"pattern": "**/config"})
	if res.Content != "No files found" {
		t.Fatalf(".git not skipped: %q", res.Content)
	}
}
