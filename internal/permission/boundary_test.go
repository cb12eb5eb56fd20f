package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveInRootsSymlinks(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "secret"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.Symlink(out, filepath.Join(root, "dirlink"))                            // folder link pointing out
	os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "filelink"))  // final component
	os.Symlink(filepath.Join(out, "not-yet"), filepath.Join(root, "dangling")) // dangling, pointing out
	os.Symlink("dangling", filepath.Join(root, "chain1"))                      // chain: chain1 -> dangling -> out
	os.Symlink("chain1", filepath.Join(root, "chain2"))                        // chain2 -> chain1
	os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "inlink"))      // stays inside
	os.Symlink("loop2", filepath.Join(root, "loop1"))                          // a loop
	os.Symlink("loop1", filepath.Join(root, "loop2"))
	cases := []struct {
		path   string
		inside bool
		want   string
	}{
		{"src/main.go", true, filepath.Join(root, "src/main.go")},
		{"dirlink/secret", false, filepath.Join(out, "secret")},
		{"dirlink/new/file", false, filepath.Join(out, "new/file")},
		{"filelink", false, filepath.Join(out, "secret")},
		{"dangling", false, filepath.Join(out, "not-yet")},
		{"chain2", false, filepath.Join(out, "not-yet")},
		{"inlink/x.go", true, filepath.Join(root, "src/x.go")},
		{"src/../../escape", false, filepath.Join(filepath.Dir(root), "escape")},
		{"dirlink/..", false, filepath.Dir(out)},
		{filepath.Join(root, "new.txt"), true, filepath.Join(root, "new.txt")},
	}
	resolvedOut, _ := filepath.EvalSymlinks(out)
	resolvedRoot, _ := filepath.EvalSymlinks(root)
	for _, tc := range cases {
		got, inside, err := ResolveInRoots([]string{root}, tc.path)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if inside != tc.inside {
			t.Errorf("%s: inside = %v, want %v (resolved %s)", tc.path, inside, tc.inside, got)
		}
		want := tc.want
		if rel, err := filepath.Rel(out, want); err == nil && filepath.IsLocal(rel) {
			want = filepath.Join(resolvedOut, rel)
		} else if rel, err := filepath.Rel(root, want); err == nil && filepath.IsLocal(rel) {
			want = filepath.Join(resolvedRoot, rel)
		}
		if got != want && got != tc.want {
			t.Errorf("%s: resolved %s, want %s", tc.path, got, want)
		}
	}
	if _, _, err := ResolveInRoots([]string{root}, "loop1/x"); err == nil {
		t.Errorf("a symlink loop must be an error")
	}
	// A second root (--add-dir) counts as inside.
	if _, inside, _ := ResolveInRoots([]string{root, out}, "dirlink/secret"); !inside {
		t.Errorf("a path in an added root must be inside")
	}
}

// Each file tool's path goes through the resolver: a link inside the
// workspace that points out is outside.
func TestFileToolsFollowLinks(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	os.Symlink(out, filepath.Join(root, "dirlink"))
	os.Symlink(filepath.Join(out, "nothing"), filepath.Join(root, "dangling"))
	os.Symlink(filepath.Join(out, "f"), filepath.Join(root, "final"))
	inputs := map[string]map[string]any{
		"Read":  {"file_path": filepath.Join(root, "final")},
		"Write": {"file_path": filepath.Join(root, "dangling"), "content": "x"},
		"Edit":  {"file_path": filepath.Join(root, "dirlink", "a.go"), "old_string": "a", "new_string": "b"},
		"Glob":  {"pattern": "*", "path": filepath.Join(root, "dirlink")},
		"Grep":  {"pattern": "x", "path": filepath.Join(root, "dirlink")},
	}
	for tool, in := range inputs {
		raw, _ := json.Marshal(in)
		e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Explore, WorkDir: root})
		d, err := e.Check(context.Background(), Request{Tool: tool, Input: raw})
		if err != nil || d.Behavior != Deny {
			t.Errorf("%s through a link out of the workspace in explore: %+v %v, want deny", tool, d, err)
		}
		e = NewEngine(EngineOptions{Tools: builtinFiles, Mode: Normal, WorkDir: root, Roots: []string{out}})
		d, err = e.Check(context.Background(), Request{Tool: tool, Input: raw})
		if err != nil || d.Behavior != Allow {
			t.Errorf("%s with the target folder added as a root: %+v %v, want allow", tool, d, err)
		}
	}
}
