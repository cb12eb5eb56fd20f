package search

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// engines returns the Grep variants to test: always the Go search, and
// when rg is installed (CI installs it) ripgrep and the default, which
// searches small trees in-process.
func engines(t *testing.T) map[string]*Grep {
	m := map[string]*Grep{"go": NewGrepWith(GrepOptions{DisableRipgrep: true})}
	if rg, err := exec.LookPath("rg"); err == nil {
		m["ripgrep"] = NewGrepWith(GrepOptions{RipgrepPath: rg, AlwaysRipgrep: true})
		m["default"] = NewGrepWith(GrepOptions{RipgrepPath: rg})
	} else {
		t.Log("rg not installed: testing the Go search only")
	}
	return m
}

func TestGrepModesAndFlags(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, sampleTree)
	a := func(p string) string { return filepath.Join(env.WorkDir, p) }
	lines := func(ls ...string) string { return strings.Join(ls, "\n") }
	cases := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"files default, newest first, ignores honoured", map[string]any{"pattern": "func"}, lines(
			"Found 8 files", a("docs/readme.md"), a("web/app.js"), a("scripts/run.py"), a("pkg/real.go"),
			a(".hidden/conf.go"), a("keep.log"), a("util.go"), a("main.go"))},
		{"count with type", map[string]any{"pattern": "func", "output_mode": "count", "type": "go"}, lines(
			a(".hidden/conf.go")+":1", a("main.go")+":1", a("pkg/real.go")+":2", a("util.go")+":1",
			"", "Found 5 total matching lines across 4 files.")},
		{"content with path", map[string]any{"pattern": "^func (Real|Other)", "path": "pkg", "output_mode": "content"}, lines(
			a("pkg/real.go")+":3:func Real() {", a("pkg/real.go")+":7:func Other() {}")},
		{"context -C", map[string]any{"pattern": "TODO", "output_mode": "content", "-C": 1}, lines(
			a("pkg/real.go")+"-3-func Real() {", a("pkg/real.go")+":4:\t// TODO: more", a("pkg/real.go")+"-5-}")},
		{"context alias", map[string]any{"pattern": "TODO", "output_mode": "content", "context": 1, "-B": 0}, lines(
			a("pkg/real.go")+":4:\t// TODO: more", a("pkg/real.go")+"-5-}")},
		{"after context with separator", map[string]any{"pattern": "func (Real|Other)", "output_mode": "content", "-A": 1, "path": "pkg/real.go"}, lines(
			a("pkg/real.go")+":3:func Real() {", a("pkg/real.go")+"-4-\t// TODO: more", "--", a("pkg/real.go")+":7:func Other() {}")},
		{"ignore case with glob", map[string]any{"pattern": "FUNC", "-i": true, "glob": "*.py", "output_mode": "count"}, lines(
			a("scripts/run.py")+":2", "", "Found 2 total matching lines across 1 file.")},
		{"no line numbers", map[string]any{"pattern": "Helper", "output_mode": "content", "-n": false}, lines(
			a("util.go")+":// Helper does things.", a("util.go")+":func Helper() int {")},
		{"multiline", map[string]any{"pattern": `func Real\(\) \{\n\t// TODO`, "multiline": true, "output_mode": "content"}, lines(
			a("pkg/real.go")+":3:func Real() {", a("pkg/real.go")+":4:\t// TODO: more")},
		{"multiline dot matches newline", map[string]any{"pattern": `Real.*Other`, "multiline": true, "output_mode": "files_with_matches"}, lines(
			"Found 1 file", a("pkg/real.go"))},
		{"head_limit and offset", map[string]any{"pattern": "func", "head_limit": 2, "offset": 1}, lines(
			"Found 8 files", a("web/app.js"), a("scripts/run.py"), "[Showing results 2-3 of 8 (offset: 1, head_limit: 2)]")},
		{"negated glob", map[string]any{"pattern": "func", "glob": "!*.go"}, lines(
			"Found 4 files", a("docs/readme.md"), a("web/app.js"), a("scripts/run.py"), a("keep.log"))},
		{"glob with folder overrides ignore files", map[string]any{"pattern": "func", "glob": "pkg/*.go"}, lines("Found 2 files", a("pkg/real.go"), a("pkg/gen_x.go"))},
		{"glob does not reach into ignored folders", map[string]any{"pattern": "func", "glob": "*.go", "output_mode": "count"}, lines(
			a(".hidden/conf.go")+":1", a("main.go")+":1", a("pkg/gen_x.go")+":1", a("pkg/real.go")+":2", a("util.go")+":1",
			"", "Found 6 total matching lines across 5 files.")},
		{"two globs", map[string]any{"pattern": "func", "glob": "*.py *.js"}, lines("Found 2 files", a("web/app.js"), a("scripts/run.py"))},
		{"single file path", map[string]any{"pattern": "println", "path": a("main.go"), "output_mode": "content"}, lines(
			a("main.go") + ":4:\tprintln(\"hello\")")},
		{"hidden files searched", map[string]any{"pattern": "Hidden"}, lines("Found 1 file", a(".hidden/conf.go"))},
		{"binary skipped", map[string]any{"pattern": "binary"}, "No files found"},
		{"no content match", map[string]any{"pattern": "zzz", "output_mode": "content"}, "No matches found"},
		{"type js", map[string]any{"pattern": "function", "type": "js", "output_mode": "content"}, lines(
			a("web/app.js") + ":1:function app() { return 1 }")},
	}
	for name, g := range engines(t) {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				res := exec1(t, g, env, tc.input)
				if res.IsError {
					t.Fatalf("error: %s", res.Content)
				}
				if res.Content != tc.want {
					t.Fatalf("got\n%s\nwant\n%s", res.Content, tc.want)
				}
			})
		}
	}
}

func TestGrepInvalidInput(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, sampleTree)
	cases := []struct{ name, input, want string }{
		{"missing pattern", `{}`, `"pattern" is missing`},
		{"bad regex", `{"pattern": "(unclosed"}`, "not a valid regular expression"},
		{"look-around", `{"pattern": "(?<=a)b"}`, "not a valid regular expression"},
		{"bad mode", `{"pattern": "x", "output_mode": "lines"}`, "output_mode must be"},
		{"negative context", `{"pattern": "x", "-A": -1}`, `"-A" must be a whole number`},
		{"fractional limit", `{"pattern": "x", "head_limit": 1.5}`, `"head_limit" must be a whole number`},
		{"unknown type", `{"pattern": "x", "type": "cobol"}`, "unknown file type"},
		{"hostile type", `{"pattern": "x", "type": "--pre=sh"}`, "not a file type name"},
		{"bad glob", `{"pattern": "x", "glob": "[a"}`, "not a valid glob"},
		{"missing path", `{"pattern": "x", "path": "/nonexistent/dir"}`, "does not exist"},
		{"nul in pattern", `{"pattern": "a\u0000"}`, "NUL byte"},
		{"-i not bool", `{"pattern": "x", "-i": "yes"}`, "must be a boolean"},
	}
	for name, g := range engines(t) {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				res := exec1(t, g, env, tc.input)
				if !res.IsError || !strings.Contains(res.Content, tc.want) {
					t.Fatalf("got %+v, want %q", res, tc.want)
				}
			})
		}
	}
}

// A pattern starting with "-" must be a pattern, not a flag to rg.
func TestGrepDashPattern(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.WorkDir, [][2]string{{"a.txt", "x --version y\n"}})
	for name, g := range engines(t) {
		res := exec1(t, g, env, map[string]any{"pattern": "--version", "output_mode": "count"})
		if res.IsError || !strings.Contains(res.Content, "a.txt:1") {
			t.Fatalf("%s: %+v", name, res)
		}
	}
}
