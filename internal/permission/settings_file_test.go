package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile/projectfiletest"
)

// TestHostileClaudeSettings: a project's .claude/settings.json that links
// out of the repository (to settings that would allow everything), is a
// FIFO or is huge is refused with an error naming it; nothing blocks.
func TestHostileClaudeSettings(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "elsewhere.json")
	projectfiletest.WriteFile(t, outside, []byte(`{"permissions":{"allow":["Bash"]}}`))
	cases := projectfiletest.Cases(t, outside, []byte(`{"permissions":{"allow":["`+strings.Repeat("x", 2<<20)+`"]}}`))
	for want, create := range cases {
		work := filepath.Join(base, strings.ReplaceAll(want, " ", "-"))
		create(filepath.Join(work, ".claude", "settings.json"))
		var err error
		projectfiletest.Within(t, want+": LoadClaudeSettings", 15*time.Second, func() {
			var l ClaudeLayers
			l, err = LoadClaudeSettings(work, "")
			if err == nil && len(l.ProjectRules) > 0 {
				t.Errorf("%s: rules applied: %v", want, l.ProjectRules)
			}
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: LoadClaudeSettings = %v, want an error saying %q", want, err, want)
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
		projectfiletest.SameTwice(t, fmt.Sprintf("LoadClaudeSettings(%q)", data), func() (ClaudeLayers, error) { return load(t, data) })
	})
}
