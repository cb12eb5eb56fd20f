package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	env := newTestEnv(t)
	dir := env.WorkDir
	existing := writeFile(t, filepath.Join(dir, "exists.txt"), "old\n")
	cases := []struct {
		name   string
		input  any
		has    string
		errHas string
		check  func(t *testing.T)
	}{
		{name: "create with parents", input: map[string]any{"file_path": filepath.Join(dir, "a", "b", "new.txt"), "content": "hi\n"}, has: "File created successfully at: " + filepath.Join(dir, "a", "b", "new.txt"),
			check: func(t *testing.T) {
				if readBack(t, filepath.Join(dir, "a", "b", "new.txt")) != "hi\n" {
					t.Fatal("content not written")
				}
			}},
		{name: "relative resolved and reported", input: map[string]any{"file_path": "rel/x.txt", "content": "x"}, has: `relative path "rel/x.txt" resolved to ` + filepath.Join(dir, "rel", "x.txt")},
		{name: "dotdot cleaned", input: map[string]any{"file_path": filepath.Join(dir, "a", "..", "c.txt"), "content": "c"}, has: filepath.Join(dir, "c.txt")},
		{name: "empty content allowed", input: map[string]any{"file_path": filepath.Join(dir, "empty.txt"), "content": ""}, has: "created"},
		{name: "overwrite without read", input: map[string]any{"file_path": existing, "content": "new\n"}, errHas: "has not been read in this session"},
		{name: "missing content", input: map[string]any{"file_path": filepath.Join(dir, "m.txt")}, errHas: `"content" is missing`},
		{name: "content wrong type", input: `{"file_path":"/tmp/x","content":5}`, errHas: `field "content" must be a string`},
		{name: "missing path", input: map[string]any{"content": "x"}, errHas: `"file_path" is missing`},
		{name: "NUL in path", input: map[string]any{"file_path": dir + "/a\x00b", "content": "x"}, errHas: "NUL"},
		{name: "NUL in content", input: map[string]any{"file_path": filepath.Join(dir, "n.txt"), "content": "a\x00b"}, errHas: "NUL"},
		{name: "directory target", input: map[string]any{"file_path": filepath.Join(dir, "a"), "content": "x"}, errHas: "is a directory"},
		{name: "huge content", input: map[string]any{"file_path": filepath.Join(dir, "h.txt"), "content": strings.Repeat("a", maxWriteBytes+1)}, errHas: "the limit is"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, NewWrite(), env, tc.input)
			if tc.errHas != "" {
				mustErr(t, res, tc.errHas)
				return
			}
			mustOK(t, res)
			if !strings.Contains(res.Content, tc.has) {
				t.Fatalf("result %q lacks %q", res.Content, tc.has)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
	if readBack(t, existing) != "old\n" {
		t.Fatal("unread file was overwritten")
	}
}

func TestWriteOverwriteFlow(t *testing.T) {
	env := newTestEnv(t)
	p := writeFile(t, filepath.Join(env.WorkDir, "script.sh"), "echo one\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	res := run(t, NewWrite(), env, map[string]any{"file_path": p, "content": "echo two\n"})
	mustOK(t, res)
	if !strings.Contains(res.Diff, "-echo one\n+echo two\n") || res.Meta["created"] != false {
		t.Fatalf("diff/meta wrong: %q %v", res.Diff, res.Meta)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o750 {
		t.Fatalf("mode not kept: %v", info.Mode())
	}
	// A second write needs no re-read: the tracker knows the new state.
	mustOK(t, run(t, NewWrite(), env, map[string]any{"file_path": p, "content": "echo three\n"}))
	// Someone else changes the file: the next write is refused.
	changeOnDisk(t, p, "echo external\n")
	mustErr(t, run(t, NewWrite(), env, map[string]any{"file_path": p, "content": "echo four\n"}), "changed on disk since you read it")
	if readBack(t, p) != "echo external\n" {
		t.Fatal("stale write went through")
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	env := newTestEnv(t)
	target := writeFile(t, filepath.Join(env.WorkDir, "real.txt"), "v1\n")
	link := filepath.Join(env.WorkDir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": link}))
	// Read through the link counts for the target too (one canonical key).
	mustOK(t, run(t, NewWrite(), env, map[string]any{"file_path": target, "content": "v2\n"}))
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 || readBack(t, link) != "v2\n" {
		t.Fatal("symlink replaced or not followed")
	}
}
