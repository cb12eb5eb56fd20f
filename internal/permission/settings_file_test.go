package permission

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileClaudeSettings: a project's .claude/settings.json that links
// out of the repository (to settings that would allow everything), is a
// FIFO or is huge is refused with an error naming it; nothing blocks.
func TestHostileClaudeSettings(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "elsewhere.json")
	if err := os.WriteFile(outside, []byte(`{"permissions":{"allow":["Bash"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(p string) error{
		"outside the repository": func(p string) error { return os.Symlink("../../elsewhere.json", p) },
		"named pipe":             func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"larger than": func(p string) error {
			return os.WriteFile(p, []byte(`{"permissions":{"allow":["`+strings.Repeat("x", 2<<20)+`"]}}`), 0o644)
		},
	}
	for want, create := range cases {
		work := filepath.Join(base, strings.ReplaceAll(want, " ", "-"))
		p := filepath.Join(work, ".claude", "settings.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := create(p); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			l, err := LoadClaudeSettings(work, "")
			if err == nil && len(l.ProjectRules) > 0 {
				t.Errorf("%s: rules applied: %v", want, l.ProjectRules)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: LoadClaudeSettings = %v, want an error saying %q", want, err, want)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: LoadClaudeSettings blocked", want)
		}
	}
}

// FuzzClaudeSettings: loading a project's .claude/settings.json never
// panics and gives the same layers (or error) for the same bytes. CI runs
// a few thousand inputs (scripts/test).
func FuzzClaudeSettings(f *testing.F) {
	for _, s := range []string{"", "{}", "null", "[]", `{"permissions":{"allow":["Bash(git log:*)","Read"],"deny":["Read(~/.ssh/**)"],"ask":["Write"],"defaultMode":"acceptEdits","additionalDirectories":["../x"]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`,
		`{"Permissions":{"Allow":["Bash"]}}`, `{"permissions":{"allow":["Bash("]}}`, `{"permissions":{"allow":"Bash"}}`, `{"hooks":1}`} {
		f.Add(s)
	}
	work := f.TempDir()
	file := filepath.Join(work, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		f.Fatal(err)
	}
	load := func(t *testing.T, data string) (ClaudeLayers, error) {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadClaudeSettings(work, "")
	}
	f.Fuzz(func(t *testing.T, data string) {
		l1, err1 := load(t, data)
		l2, err2 := load(t, data)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) || !reflect.DeepEqual(l1, l2) {
			t.Fatalf("LoadClaudeSettings(%q) differs between two calls: %v / %v", data, err1, err2)
		}
	})
}
