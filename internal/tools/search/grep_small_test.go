package search

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// isolateGitConfig points HOME and XDG_CONFIG_HOME at empty folders, so a
// developer's global git excludes reach neither rg nor the guard.
func isolateGitConfig(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// TestGrepSmallTreeHandsOver covers each thing that makes the in-process
// search of a small tree give the query to ripgrep: the answer must be
// rg's exactly, and rg must be the engine that gave it.
func TestGrepSmallTreeHandsOver(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	isolateGitConfig(t)
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range "needle here\n" {
		utf16 = append(utf16, byte(r), 0)
	}
	big := make([][2]string, smallTreeFiles+1)
	for i := range big {
		big[i] = [2]string{fmt.Sprintf("d%02d/f%04d.txt", i/50, i), "needle\n"}
	}
	cases := []struct {
		name  string
		files [][2]string
		input map[string]any
	}{
		{"UTF-16 file (rg transcodes it)", [][2]string{{"a.txt", "needle\n"}, {"w.txt", string(utf16)}}, map[string]any{"pattern": "needle"}},
		{"UTF-8 byte-order mark", [][2]string{{"a.txt", "\uFEFFneedle\n"}}, map[string]any{"pattern": "^needle", "output_mode": "content"}},
		{"Unicode \\w on non-ASCII text", [][2]string{{"a.txt", "café\ncafe\n"}}, map[string]any{"pattern": `caf\w`, "output_mode": "content"}},
		{"\\s on a vertical tab", [][2]string{{"a.txt", "a\vb\n"}}, map[string]any{"pattern": `a\sb`, "output_mode": "count"}},
		{"invalid UTF-8", [][2]string{{"a.txt", "ne\xffedle\nneedle\n"}}, map[string]any{"pattern": "ne.edle", "output_mode": "count"}},
		{".rgignore", [][2]string{{".rgignore", "*.txt\n"}, {"a.txt", "needle\n"}, {"b.md", "needle\n"}}, map[string]any{"pattern": "needle"}},
		{"nested repository", [][2]string{{"a.txt", "needle\n"}, {"sub/.git/HEAD", "ref: refs/heads/main\n"}, {"sub/.gitignore", "*.txt\n"}, {"sub/b.txt", "needle\n"}}, map[string]any{"pattern": "needle"}},
		{".git file at the root", [][2]string{{".git", "gitdir: needle\n"}, {"a.txt", "needle\n"}}, map[string]any{"pattern": "needle"}},
		{"ignore file above the root", [][2]string{{".ignore", "*.txt\n"}, {"in/a.txt", "needle\n"}, {"in/b.md", "needle\n"}}, map[string]any{"pattern": "needle", "path": "in"}},
		{"NUL beyond the first read", [][2]string{{"a.txt", "needle\n" + strings.Repeat("x", 20000) + "\x00"}}, map[string]any{"pattern": "needle"}},
		{"named binary file", [][2]string{{"a.bin", "needle\x00\n"}}, map[string]any{"pattern": "needle", "path": "a.bin"}},
		{"multiline", [][2]string{{"a.txt", "nee\ndle\n"}}, map[string]any{"pattern": `nee\ndle`, "multiline": true}},
		{"a file over the byte bound", [][2]string{{"a.txt", "needle\n" + strings.Repeat("x\n", smallTreeBytes/2)}}, map[string]any{"pattern": "needle"}},
		{"a named file over the byte bound", [][2]string{{"a.txt", "needle\n" + strings.Repeat("x\n", smallTreeBytes/2)}}, map[string]any{"pattern": "needle", "path": "a.txt"}},
		{"more files than the bound", big, map[string]any{"pattern": "needle", "output_mode": "count", "head_limit": 3}},
		{"escape rg 13 refuses", [][2]string{{"a.txt", "a/b\n"}}, map[string]any{"pattern": `a\/b`}},
		{"brace Go takes literally", [][2]string{{"a.txt", "a{,2}\n"}}, map[string]any{"pattern": `a{,2}`}},
		{"named group", [][2]string{{"a.txt", "ab\n"}}, map[string]any{"pattern": `(?P<x>a)b`}},
		{"class set operation", [][2]string{{"a.txt", "a&&b\n"}}, map[string]any{"pattern": `[a&&b]`, "output_mode": "count"}},
		{"nested class", [][2]string{{"a.txt", "a[b\n"}}, map[string]any{"pattern": `[a[b]]`, "output_mode": "count"}},
	}
	small := NewGrepWith(GrepOptions{RipgrepPath: rg})
	only := NewGrepWith(GrepOptions{RipgrepPath: rg, AlwaysRipgrep: true})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			writeTree(t, env.WorkDir, c.files)
			got, want := exec1(t, small, env, c.input), exec1(t, only, env, c.input)
			if got.Meta["engine"] != nil && got.Meta["engine"] != "ripgrep" {
				t.Fatalf("searched by %v, want ripgrep", got.Meta["engine"])
			}
			if got.Content != want.Content || got.IsError != want.IsError {
				t.Fatalf("default differs from rg\n--- default ---\n%s\n--- rg ---\n%s", got.Content, want.Content)
			}
		})
	}
}

// TestGrepSmallTreeInProcess checks small trees with the usual things in
// them (ignore files, hidden and binary files, a repository) are searched
// in-process with rg's answer.
func TestGrepSmallTreeInProcess(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	isolateGitConfig(t)
	env := testEnv(t)
	files := append([][2]string{{".git/HEAD", "ref: refs/heads/main\n"}, {".git/info/exclude", "excluded.go\n"},
		{"excluded.go", "func excluded\n"}, {"small.bin", "func\x00\n"}}, sampleTree...)
	writeTree(t, env.WorkDir, files)
	small := NewGrepWith(GrepOptions{RipgrepPath: rg})
	only := NewGrepWith(GrepOptions{RipgrepPath: rg, AlwaysRipgrep: true})
	for _, in := range []map[string]any{
		{"pattern": "func"},
		{"pattern": `func \w+\(`, "output_mode": "content", "-C": 1},
		{"pattern": "FUNC", "-i": true, "output_mode": "count"},
		{"pattern": `^func (Real|Other)\b`, "path": "pkg", "output_mode": "content"},
		{"pattern": "func", "glob": "*.{go,py}", "output_mode": "count"},
		{"pattern": "func", "type": "go"},
		{"pattern": "TODO", "path": "pkg/real.go", "output_mode": "content"},
		{"pattern": `[[:alpha:]]+\(\)`, "output_mode": "count"},
		{"pattern": `(?i:hello)|x{2,}`, "output_mode": "content"},
	} {
		got, want := exec1(t, small, env, in), exec1(t, only, env, in)
		if got.Meta["engine"] != "go" {
			t.Errorf("%v: searched by %v, want the in-process search", in, got.Meta["engine"])
		}
		if got.Content != want.Content || got.IsError {
			t.Errorf("%v: differs from rg\n--- in-process ---\n%s\n--- rg ---\n%s", in, got.Content, want.Content)
		}
	}
}

// TestPortablePattern pins which patterns the in-process search takes.
func TestPortablePattern(t *testing.T) {
	for _, c := range []struct {
		p              string
		ok, asciiClass bool
	}{
		{`func Handle0\d`, true, true}, {`foo.*bar`, true, false}, {`\{brace\}`, true, false},
		{`[a-z]+_[0-9]{2,4}`, true, false}, {`[]a]`, true, false}, {`[^]a]`, true, false},
		{`(?i)x|(?:y)`, true, false}, {`[[:space:]]`, true, false}, {`a\-b\#c\&d\~e`, true, false},
		{`\bword\b`, true, true}, {`[\w.]+@`, true, true},
		{`a\/b`, false, false}, {`\x41`, false, false}, {`\pL`, false, false}, {`\Qa.b\E`, false, false},
		{`a{,3}`, false, false}, {`{2}`, false, false}, {`a{`, false, false}, {`(?<n>a)`, false, false},
		{`(?P<n>a)`, false, false}, {`[a[b]]`, false, false}, {`[a&&b]`, false, false}, {`[a--b]`, false, false},
		{"a\nb", false, false}, {`a\nb`, false, false}, {`\1`, false, false}, {`\A`, false, false}, {`[abc`, false, false},
	} {
		ok, ascii := portablePattern(c.p)
		if ok != c.ok || (ok && ascii != c.asciiClass) {
			t.Errorf("portablePattern(%q) = %v, %v; want %v, %v", c.p, ok, ascii, c.ok, c.asciiClass)
		}
	}
}

// TestGrepSmallTreeAtTheBound: the bound is what decides, so a
// tree just under it stays in-process.
func TestGrepSmallTreeAtTheBound(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	isolateGitConfig(t)
	env := testEnv(t)
	for i := range smallTreeFiles {
		p := filepath.Join(env.WorkDir, fmt.Sprintf("d%02d/f%04d.txt", i/50, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := exec1(t, NewGrepWith(GrepOptions{RipgrepPath: rg}), env, map[string]any{"pattern": "needle", "output_mode": "count", "head_limit": 1})
	if res.Meta["engine"] != "go" || res.Meta["num_files"] != smallTreeFiles {
		t.Fatalf("engine %v, %v files; want go, %d", res.Meta["engine"], res.Meta["num_files"], smallTreeFiles)
	}
}
