package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-agent/tandem/internal/session"
)

// expandIn opens a session in work and expands prompt there.
func expandIn(t *testing.T, a *App, work, prompt string) string {
	t.Helper()
	l, err := a.Manager.Open(context.Background(), session.OpenRequest{Cwd: work, Mode: "normal"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	defer l.Env().State.EndTurn()
	return l.Equipment().(*Equipment).ExpandPrompt(context.Background(), prompt).Prompt
}

// A command's ! commands are judged as Bash calls: its allowed-tools
// count only in a trusted folder, a deny rule holds even then, and a
// refused command never runs (its marker file is not made) while the
// prompt says why. In an untrusted folder a project command runs no !
// line at all, not even a read-only one. @ files come through projectfile
// and the Read check.
func TestCommandInlineForms(t *testing.T) {
	const cmd = "---\ndescription: d\nallowed-tools: Bash(touch:*)\n---\nSay: !`echo hi`\nMark: !`touch marker`\nSee @README.md\n"
	cases := []struct {
		name        string
		trusted     bool
		settings    string
		wantMarker  bool
		wantRefused string
	}{
		{name: "trusted", trusted: true, wantMarker: true},
		{name: "untrusted", wantRefused: "the folder is not trusted"},
		{name: "trusted with a deny rule", trusted: true, settings: `{"permissions":{"deny":["Bash(touch:*)"]}}`, wantRefused: "permission denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
			writeTestFile(t, filepath.Join(work, ".claude/commands/go.md"), cmd)
			writeTestFile(t, filepath.Join(work, "README.md"), "readme text\n")
			if c.settings != "" {
				writeTestFile(t, filepath.Join(work, ".claude/settings.json"), c.settings)
			}
			if c.trusted {
				if _, err := a.Trust.Add(work); err != nil {
					t.Fatal(err)
				}
			}
			out := expandIn(t, a, work, "/go")
			if c.trusted != strings.Contains(out, "Say: hi\n") || !strings.Contains(out, "<file path=\"README.md\">\nreadme text\n</file>") {
				t.Errorf("output (wanted only when trusted) or file missing:\n%s", out)
			}
			_, err := os.Stat(filepath.Join(work, "marker"))
			if made := err == nil; made != c.wantMarker {
				t.Errorf("marker made = %v, want %v", made, c.wantMarker)
			}
			if refused := strings.Contains(out, "[!`touch marker` was not run: "+c.wantRefused); refused != (c.wantRefused != "") {
				t.Errorf("refusal said = %v, want %v:\n%s", refused, c.wantRefused, out)
			}
		})
	}
}

// An @ mention of a file outside the repository, a link out of it, a FIFO
// or a credential-like file is refused with a message naming why; a folder
// is listed; a missing file is left as text.
func TestCommandMentionsRefused(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	if err := os.WriteFile(filepath.Join(filepath.Dir(work), "outside.txt"), []byte("SECRET-OUTSIDE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(work), "outside.txt"), filepath.Join(work, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(work, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(work, ".env"), "TOKEN=SECRET-ENV\n")
	writeTestFile(t, filepath.Join(work, "src/a.go"), "package a\n")
	writeTestFile(t, filepath.Join(work, ".claude/commands/look.md"), "Look at @../outside.txt @link.txt @fifo @.env @src @nothing-here\n")
	out := expandIn(t, a, work, "/look")
	if strings.Contains(out, "SECRET") {
		t.Fatalf("a refused file reached the prompt:\n%s", out)
	}
	for _, want := range []string{
		"[@../outside.txt was not included: refused:", "outside the repository",
		"[@link.txt was not included: refused:",
		"[@fifo was not included: refused:",
		"[@.env was not included: refused:", "credential-like",
		"<directory path=\"src\">\na.go\n</directory>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "@nothing-here was not") {
		t.Errorf("a missing file is left as text:\n%s", out)
	}
}

// A ! command runs through the session's Bash tool, so a credential's
// value in its output is blanked as in any Bash result.
func TestCommandInlineRedactsSecrets(t *testing.T) {
	const key = "sk-ant-inline-secret-0123456789abcdef"
	t.Setenv("ANTHROPIC_API_KEY", key) // the Bash tool's redactor reads the process environment
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": key})
	writeTestFile(t, filepath.Join(work, ".claude/commands/leak.md"), "Key: !`echo "+key+"`\n")
	if _, err := a.Trust.Add(work); err != nil { // a project command's ! lines run only when trusted
		t.Fatal(err)
	}
	out := expandIn(t, a, work, "/leak")
	if strings.Contains(out, key) || !strings.Contains(out, "Key: ") {
		t.Errorf("the key reached the prompt:\n%s", out)
	}
}
