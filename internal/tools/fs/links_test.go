package fs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

func toolByName(name string) tool.Tool {
	return map[string]tool.Tool{"Write": NewWrite(), "Edit": NewEdit(), "MultiEdit": NewMultiEdit()}[name]
}

// A hard link in the workspace to a file outside it must not let Write,
// Edit or MultiEdit change the outside file.
func TestWriteRefusesHardLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input func(p string) map[string]any
	}{
		{"Write", func(p string) map[string]any { return map[string]any{"file_path": p, "content": "pwned\n"} }},
		{"Edit", func(p string) map[string]any {
			return map[string]any{"file_path": p, "old_string": "secret", "new_string": "pwned"}
		}},
		{"MultiEdit", func(p string) map[string]any {
			return map[string]any{"file_path": p, "edits": []map[string]any{{"old_string": "secret", "new_string": "pwned"}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			outside := writeFile(t, filepath.Join(t.TempDir(), "authorized_keys"), "secret\n")
			link := filepath.Join(env.WorkDir, "notes.txt")
			if err := os.Link(outside, link); err != nil {
				t.Skip("hard links unavailable:", err)
			}
			mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": link}))
			res := run(t, toolByName(tc.name), env, tc.input(link))
			mustErr(t, res, "2 hard links")
			if got := readBack(t, outside); got != "secret\n" {
				t.Fatalf("the outside file was changed: %q", got)
			}
		})
	}
}
