package search

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestIgnoreRules(t *testing.T) {
	cases := []struct {
		lines []string
		path  string
		isDir bool
		want  bool
	}{
		{[]string{"*.log"}, "a/b/x.log", false, true},
		{[]string{"*.log", "!keep.log"}, "a/keep.log", false, false},
		{[]string{"*.log", "!keep.log", "keep.log"}, "keep.log", false, true},
		{[]string{"build/"}, "src/build", true, true},
		{[]string{"build/"}, "src/build", false, false},
		{[]string{"build/"}, "build/x.go", false, false}, // a rule tests the path itself, not its parents
		{[]string{"/gen"}, "gen", true, true},
		{[]string{"/gen"}, "sub/gen", true, false},
		{[]string{"doc/frotz"}, "doc/frotz", false, true},
		{[]string{"doc/frotz"}, "a/doc/frotz", false, false},
		{[]string{"**/foo"}, "a/b/foo", false, true},
		{[]string{"**/foo"}, "foo", false, true},
		{[]string{"a/**/b"}, "a/b", false, true},
		{[]string{"a/**/b"}, "a/x/y/b", false, true},
		{[]string{"logs/**"}, "logs", true, false},
		{[]string{"logs/**"}, "logs/x/y", false, true},
		{[]string{"x?[0-9].txt"}, "d/xa1.txt", false, true},
		{[]string{"[!a]*.c"}, "b.c", false, true},
		{[]string{"[!a]*.c"}, "a.c", false, false},
		{[]string{`\#hash`}, "#hash", false, true},
		{[]string{`\!bang`}, "!bang", false, true},
		{[]string{"# comment"}, "# comment", false, false},
		{[]string{"trail   "}, "trail", false, true},
		{[]string{`sp\ `}, "sp ", false, true},
		{[]string{"", "   ", "!"}, "x", false, false},
	}
	for _, tc := range cases {
		var rules []ignoreRule
		for _, l := range tc.lines {
			if r, ok := parseIgnoreLine(l, ""); ok {
				rules = append(rules, r)
			}
		}
		if got := ignored(rules, tc.path, tc.isDir); got != tc.want {
			t.Errorf("rules %q, path %q (dir %v): ignored = %v, want %v", tc.lines, tc.path, tc.isDir, got, tc.want)
		}
	}
}

// A rule from a nested ignore file is relative to that file's folder.
func TestIgnoreRuleDomain(t *testing.T) {
	r, ok := parseIgnoreLine("/only", "sub/")
	if !ok {
		t.Fatal("not parsed")
	}
	for path, want := range map[string]bool{"sub/only": true, "only": false, "sub/x/only": false, "subonly": false} {
		if got := ignored([]ignoreRule{r}, path, false); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

// ignoredRepo is a repository whose .gitignore ignores folders that a user
// may still search by naming them; want is what rg 13 lists for each search
// root (checked by TestIgnoreParityWithRipgrep).
var ignoredRepo = struct {
	files [][2]string
	want  map[string][]string
}{
	files: [][2]string{
		{".gitignore", "build/\nout\n/gen/\n*.log\n!keep.log\na/b/\nlogs/deep/**\n"},
		{"build/x.go", "needle\n"}, {"build/sub/y.go", "needle\n"}, {"build/sub/z.log", "needle\n"},
		{"out/x/o.go", "needle\n"}, {"gen/g.go", "needle\n"},
		{"logs/l.log", "needle\n"}, {"logs/keep.log", "needle\n"}, {"logs/deep/d.go", "needle\n"},
		{"a/b/c/c.go", "needle\n"}, {"a/b/bb.go", "needle\n"}, {"src/main.go", "needle\n"},
	},
	want: map[string][]string{
		".":         {"logs/keep.log", "src/main.go"},
		"build":     {"sub/y.go", "x.go"},
		"build/sub": {"y.go"},
		"out":       {"x/o.go"},
		"gen":       {"g.go"},
		"logs":      {"keep.log"},
		"logs/deep": nil,
		"a/b":       {"bb.go", "c/c.go"},
		"a/b/c":     {"c.go"},
	},
}

func writeRepo(t *testing.T, files [][2]string) string {
	t.Helper()
	env := testEnv(t)
	if err := os.Mkdir(filepath.Join(env.WorkDir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTree(t, env.WorkDir, files)
	return env.WorkDir
}

// Searching a folder that the enclosing repository ignores searches it, as
// rg does: the parent's rules apply to the entries below the search root.
func TestSearchRootInsideIgnoredFolder(t *testing.T) {
	top := writeRepo(t, ignoredRepo.files)
	env := testEnv(t)
	env.WorkDir = top
	for root, want := range ignoredRepo.want {
		t.Run(root, func(t *testing.T) {
			dir := filepath.Join(top, root)
			rel := func(content string) []string {
				if strings.HasPrefix(content, "No ") {
					return nil
				}
				var out []string
				for _, l := range strings.Split(content, "\n") {
					r, err := filepath.Rel(dir, l)
					if err != nil {
						t.Fatal(err)
					}
					if !strings.HasPrefix(filepath.Base(r), ".") { // the .gitignore itself
						out = append(out, filepath.ToSlash(r))
					}
				}
				sort.Strings(out)
				return out
			}
			glob := exec1(t, NewGlob(), env, map[string]any{"pattern": "**/*", "path": dir})
			if got := rel(glob.Content); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Glob in %s: %q, want %q", root, got, want)
			}
			grep := exec1(t, NewGrepWith(GrepOptions{DisableRipgrep: true}), env,
				map[string]any{"pattern": "needle", "path": dir})
			lines := strings.SplitN(grep.Content, "\n", 2) // "Found N files" first
			got := []string(nil)
			if len(lines) == 2 {
				got = rel(lines[1])
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Grep in %s: %q, want %q (output %q)", root, got, want, grep.Content)
			}
		})
	}
}

// walkList is what the walker lists under root, relative to it.
func walkList(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := newWalker(root).walk(context.Background(), func(_, rel string, _ fs.DirEntry) error {
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// rgList is what `rg --files` lists under root with the flags Grep uses.
func rgList(t *testing.T, rg, root string) []string {
	t.Helper()
	cmd := exec.Command(rg, "--no-config", "--hidden", "--no-require-git", "--no-messages", "--glob", "!.git", "--files", ".")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil && len(b) > 0 {
		t.Fatalf("rg in %s: %v", root, err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, strings.TrimPrefix(l, "./"))
		}
	}
	sort.Strings(out)
	return out
}

// TestIgnoreParityWithRipgrep compares the walker with rg on ignore rules
// of every kind, from several search roots of one repository.
func TestIgnoreParityWithRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	files := append([][2]string{
		{".ignore", "*.ign\n!keep.ign\n"},
		{"src/.gitignore", "/anch.go\ngenerated/\n!important.log\n*.tmp\n"},
		{"src/anch.go", "x"}, {"src/deeper/anch.go", "x"}, {"src/generated/g.go", "x"},
		{"src/important.log", "x"}, {"src/deeper/a.tmp", "x"},
		{"docs/a.ign", "x"}, {"docs/keep.ign", "x"}, {"docs/[x].md", "x"},
		{"tree/a/x/y/b/f.go", "x"}, {"tree/a/b/f.go", "x"},
		{"dot/.env", "x"}, {"dot/.cache/c", "x"},
	}, ignoredRepo.files...)
	files = append(files, [2]string{"tree/.gitignore", "a/**/b/\n.cache/\n"}, [2]string{"dot/.gitignore", ".cache/\n!.env\n.env\n"})
	top := writeRepo(t, files)
	roots := []string{".", "src", "src/generated", "src/deeper", "docs", "tree", "tree/a", "tree/a/b", "dot", "dot/.cache"}
	for root := range ignoredRepo.want {
		roots = append(roots, root)
	}
	for _, root := range roots {
		dir := filepath.Join(top, root)
		want, got := rgList(t, rg, dir), walkList(t, dir)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("root %s:\nwalker %q\nrg     %q", root, got, want)
		}
		// The expectations of TestSearchRootInsideIgnoredFolder are rg's.
		if exp, ok := ignoredRepo.want[root]; ok && root != "." && strings.Join(want, " ") != strings.Join(exp, " ") {
			t.Errorf("root %s: rg lists %q, ignoredRepo.want says %q", root, want, exp)
		}
	}
}
