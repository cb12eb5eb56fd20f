package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEditTool(t *testing.T) {
	env := newTestEnv(t)
	dir := env.WorkDir
	file := func(name, content string) string {
		p := writeFile(t, filepath.Join(dir, name), content)
		mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
		return p
	}
	cases := []struct {
		name   string
		setup  func() string // returns file path
		input  func(p string) any
		want   string // file content afterwards (checked when errHas is empty)
		errHas string
		meta   map[string]any
	}{
		{name: "simple", setup: func() string { return file("s.txt", "alpha beta\n") },
			input: func(p string) any { return map[string]any{"file_path": p, "old_string": "beta", "new_string": "gamma"} },
			want:  "alpha gamma\n", meta: map[string]any{"matcher": "exact", "replacements": 1}},
		{name: "crlf and bom preserved", setup: func() string { return file("w.cs", "\uFEFFusing System;\r\nclass A {}\r\n") },
			input: func(p string) any {
				return map[string]any{"file_path": p, "old_string": "using System;\nclass A {}", "new_string": "using Up;\nclass B {}"}
			},
			want: "\uFEFFusing Up;\r\nclass B {}\r\n"},
		{name: "crlf old crlf new", setup: func() string { return file("c.txt", "alpha\r\nbeta\r\ngamma\r\n") },
			input: func(p string) any {
				return map[string]any{"file_path": p, "old_string": "beta\r\ngamma", "new_string": "beta-updated\r\nomega"}
			},
			want: "alpha\r\nbeta-updated\r\nomega\r\n"},
		{name: "lf file crlf input", setup: func() string { return file("l.txt", "alpha\nbeta\ngamma\n") },
			input: func(p string) any {
				return map[string]any{"file_path": p, "old_string": "alpha\r\nbeta", "new_string": "a\r\nb"}
			},
			want: "a\nb\ngamma\n"},
		{name: "replace_all crlf", setup: func() string { return file("r.txt", "x\r\ny\r\nx\r\ny\r\n") },
			input: func(p string) any {
				return map[string]any{"file_path": p, "old_string": "x\ny", "new_string": "z", "replace_all": true}
			},
			want: "z\r\nz\r\n", meta: map[string]any{"replacements": 2}},
		{name: "tolerant matcher reported", setup: func() string { return file("t.go", "func f() {\n\treturn 1\n}\n") },
			input: func(p string) any {
				return map[string]any{"file_path": p, "old_string": "    return 1", "new_string": "    return 2"}
			},
			want: "func f() {\n\treturn 2\n}\n", meta: map[string]any{"matcher": "trimmed-lines"}},
		{name: "ambiguous", setup: func() string { return file("a.txt", "x\nx\n") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "x", "new_string": "y"} },
			errHas: "Found 2 matches"},
		{name: "not read", setup: func() string { return writeFile(t, filepath.Join(dir, "unread.txt"), "abc") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "abc", "new_string": "d"} },
			errHas: "Read it first"},
		{name: "missing file", setup: func() string { return filepath.Join(dir, "nope.txt") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "abc", "new_string": "d"} },
			errHas: "File does not exist"},
		{name: "create with empty old", setup: func() string { return filepath.Join(dir, "new", "made.txt") },
			input: func(p string) any { return map[string]any{"file_path": p, "old_string": "", "new_string": "fresh\n"} },
			want:  "fresh\n", meta: map[string]any{"created": true}},
		{name: "empty old on existing", setup: func() string { return file("e.txt", "data") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "", "new_string": "x"} },
			errHas: "old_string is empty"},
		{name: "identical", setup: func() string { return file("i.txt", "data") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "data", "new_string": "data"} },
			errHas: "identical"},
		{name: "missing new_string", setup: func() string { return file("m.txt", "data") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "data"} },
			errHas: `"new_string" is missing`},
		{name: "replace_all wrong type", setup: func() string { return file("b.txt", "data") },
			input: func(p string) any {
				return `{"file_path":"` + p + `","old_string":"a","new_string":"b","replace_all":"yes"}`
			},
			errHas: `field "replace_all" must be a boolean`},
		{name: "NUL in old_string", setup: func() string { return file("n.txt", "data") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "d\x00", "new_string": "x"} },
			errHas: "NUL"},
		{name: "directory", setup: func() string { os.MkdirAll(filepath.Join(dir, "d"), 0o755); return filepath.Join(dir, "d") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "a", "new_string": "b"} },
			errHas: "is a directory"},
		{name: "binary file", setup: func() string { return writeFile(t, filepath.Join(dir, "bin.dat"), "ab\x00cd") },
			input:  func(p string) any { return map[string]any{"file_path": p, "old_string": "ab", "new_string": "x"} },
			errHas: "binary"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.setup()
			before, _ := os.ReadFile(p)
			res := run(t, NewEdit(), env, tc.input(p))
			if tc.errHas != "" {
				mustErr(t, res, tc.errHas)
				if after, _ := os.ReadFile(p); string(after) != string(before) {
					t.Fatal("a failed edit changed the file")
				}
				return
			}
			mustOK(t, res)
			if got := readBack(t, p); got != tc.want {
				t.Fatalf("file = %q, want %q", got, tc.want)
			}
			for k, v := range tc.meta {
				if res.Meta[k] != v {
					t.Fatalf("meta[%s] = %v, want %v (%v)", k, res.Meta[k], v, res.Meta)
				}
			}
			if res.Diff == "" || strings.Contains(res.Diff, "\r") || strings.Contains(res.Diff, "\uFEFF") {
				t.Fatalf("bad diff %q", res.Diff)
			}
		})
	}
}

func TestEditResultShowsDiffAndSnippet(t *testing.T) {
	env := newTestEnv(t)
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	p := writeFile(t, filepath.Join(env.WorkDir, "f.txt"), b.String())
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	res := run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "line 25\n", "new_string": "line 25a\nline 25b\n"})
	mustOK(t, res)
	wantDiff := "--- " + p + "\n+++ " + p + "\n@@ -22,7 +22,8 @@\n line 22\n line 23\n line 24\n-line 25\n+line 25a\n+line 25b\n line 26\n line 27\n line 28\n"
	if res.Diff != wantDiff {
		t.Fatalf("diff:\n%s\nwant:\n%s", res.Diff, wantDiff)
	}
	if !strings.Contains(res.Content, "    25\tline 25a\n    26\tline 25b") {
		t.Fatalf("snippet missing: %s", res.Content)
	}
	if res.Meta["additions"] != 2 || res.Meta["deletions"] != 1 {
		t.Fatalf("stats: %v", res.Meta)
	}
}

func TestEditStaleAndChained(t *testing.T) {
	env := newTestEnv(t)
	p := writeFile(t, filepath.Join(env.WorkDir, "f.go"), "a := 1\nb := 2\n")
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	mustOK(t, run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "a := 1", "new_string": "a := 10"}))
	// The tracker saw our own write: no re-read needed.
	mustOK(t, run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "b := 2", "new_string": "b := 20"}))
	changeOnDisk(t, p, "a := 10\nb := 20\nc := 3\n")
	mustErr(t, run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "c := 3", "new_string": "c := 30"}), "changed on disk")
	// Touching without changing the content is not a change.
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	mustOK(t, run(t, NewEdit(), env, map[string]any{"file_path": p, "old_string": "c := 3", "new_string": "c := 30"}))
	if got := readBack(t, p); got != "a := 10\nb := 20\nc := 30\n" {
		t.Fatalf("content %q", got)
	}
}

func TestEditParallelNoneLost(t *testing.T) {
	env := newTestEnv(t)
	const n = 40
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "value_%02d = 0\n", i)
	}
	p := writeFile(t, filepath.Join(env.WorkDir, "many.txt"), b.String())
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Half go through a symlink-free alias path with "..".
			path := p
			if i%2 == 1 {
				path = filepath.Join(filepath.Dir(p), ".", "..", filepath.Base(filepath.Dir(p)), filepath.Base(p))
			}
			res := run(t, NewEdit(), env, map[string]any{"file_path": path,
				"old_string": fmt.Sprintf("value_%02d = 0", i), "new_string": fmt.Sprintf("value_%02d = %d", i, i+100)})
			if res.IsError {
				errs <- res.Content
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	got := readBack(t, p)
	for i := 0; i < n; i++ {
		if !strings.Contains(got, fmt.Sprintf("value_%02d = %d\n", i, i+100)) {
			t.Fatalf("edit %d lost:\n%s", i, got)
		}
	}
	if n := len(LocksFrom(env).locks); n != 0 {
		t.Fatalf("lock table keeps %d entries", n)
	}
}

func TestMultiEdit(t *testing.T) {
	env := newTestEnv(t)
	dir := env.WorkDir
	p := writeFile(t, filepath.Join(dir, "m.py"), "def f():\n    a = 1\n    b = 2\n    return a + b\n")
	mustErr(t, run(t, NewMultiEdit(), env, map[string]any{"file_path": p, "edits": []map[string]any{{"old_string": "a = 1", "new_string": "a = 5"}}}), "Read it first")
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))

	cases := []struct {
		name   string
		input  any
		errHas string
	}{
		{name: "no edits", input: map[string]any{"file_path": p, "edits": []any{}}, errHas: "at least one"},
		{name: "edits missing", input: map[string]any{"file_path": p}, errHas: "at least one"},
		{name: "edits wrong type", input: `{"file_path":"` + p + `","edits":"a->b"}`, errHas: `field "edits" must be an array`},
		{name: "edit missing new", input: map[string]any{"file_path": p, "edits": []map[string]any{{"old_string": "a"}}}, errHas: `"edits[0].new_string" is missing`},
		{name: "later empty old", input: map[string]any{"file_path": p, "edits": []map[string]any{{"old_string": "a = 1", "new_string": "a = 2"}, {"old_string": "", "new_string": "x"}}}, errHas: "edits[1].old_string is empty"},
		{name: "second fails atomically", input: map[string]any{"file_path": p, "edits": []map[string]any{{"old_string": "a = 1", "new_string": "a = 9"}, {"old_string": "c = 3", "new_string": "c = 4"}}}, errHas: "Edit 2 of 2 (edits[1]) failed"},
		{name: "too many", input: map[string]any{"file_path": p, "edits": make([]map[string]any, maxMultiEdits+1)}, errHas: "more than the"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustErr(t, run(t, NewMultiEdit(), env, tc.input), tc.errHas)
		})
	}
	if readBack(t, p) != "def f():\n    a = 1\n    b = 2\n    return a + b\n" {
		t.Fatal("failed MultiEdit changed the file")
	}
	res := run(t, NewMultiEdit(), env, map[string]any{"file_path": p, "edits": []map[string]any{
		{"old_string": "a = 1", "new_string": "alpha = 1"},
		{"old_string": "return a + b", "new_string": "return alpha + b"},
		{"old_string": "b", "new_string": "beta", "replace_all": true},
	}})
	mustOK(t, res)
	if got := readBack(t, p); got != "def f():\n    alpha = 1\n    beta = 2\n    return alpha + beta\n" {
		t.Fatalf("content %q", got)
	}
	if !strings.Contains(res.Content, "Applied 3 edits") || res.Meta["replacements"] != 4 {
		t.Fatalf("result: %s %v", res.Content, res.Meta)
	}
	// Creating a file: first edit with empty old_string, later edits on it.
	np := filepath.Join(dir, "created", "n.txt")
	mustOK(t, run(t, NewMultiEdit(), env, map[string]any{"file_path": np, "edits": []map[string]any{
		{"old_string": "", "new_string": "hello world\n"}, {"old_string": "world", "new_string": "there"}}}))
	if readBack(t, np) != "hello there\n" {
		t.Fatal("created file wrong")
	}
}

func TestResolvePath(t *testing.T) {
	env := newTestEnv(t)
	cases := []struct {
		in, want, errHas string
	}{
		{in: "a/b.go", want: filepath.Join(env.WorkDir, "a/b.go")},
		{in: "/x/../y//z.go", want: "/y/z.go"},
		{in: "../up.txt", want: filepath.Join(filepath.Dir(env.WorkDir), "up.txt")},
		{in: "", errHas: "empty"},
		{in: "  ", errHas: "empty"},
		{in: "a\x00b", errHas: "NUL"},
	}
	for _, tc := range cases {
		got, err := ResolvePath(env, tc.in)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("ResolvePath(%q) err = %v, want %q", tc.in, err, tc.errHas)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ResolvePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
