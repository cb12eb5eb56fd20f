package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// inlineCommand is a project command with both of Claude Code's inline
// forms: !`echo hi` and !`touch marker` run before the prompt is sent,
// @README.md brings the file in.
const inlineCommand = "---\ndescription: Check in\nallowed-tools: Bash(touch:*)\n---\nSay: !`echo hi-from-shell`\nMark: !`touch marker`\nRead @README.md\n"

func commandNotes(r runResult) []string {
	var out []string
	for _, e := range r.Events {
		if e.Type == event.Status && e.Meta["notice"] == "command_inline" {
			out = append(out, e.Message)
		}
	}
	return out
}

// In a trusted folder the command's allowed-tools let `touch` run: the
// model's request carries the command's output and the file.
func TestCommandInlineTrusted(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("noted")}})
	x.WriteFile(".claude/commands/checkin.md", inlineCommand)
	x.WriteFile("README.md", "README-BODY-7731\n")
	if tr := x.Run("trust", x.Work); tr.Code != 0 {
		t.Fatalf("trust: %s", tr.Stderr)
	}
	r := x.RunStream("/checkin")
	mustSucceed(t, r)
	txt := requestText(x.lastMain())
	for _, want := range []string{"Say: hi-from-shell", "<file path=\"README.md\">\nREADME-BODY-7731"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the model's request lacks %q:\n%s", want, txt)
		}
	}
	if _, err := os.Stat(filepath.Join(x.Work, "marker")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// In an untrusted folder a project command's ! lines do not run at all
// (not even a read-only echo): `touch` never runs, the prompt says why
// and how to trust the folder, the @ file is still included, and the run
// succeeds.
func TestCommandInlineUntrustedRefused(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("noted")}})
	x.WriteFile(".claude/commands/checkin.md", inlineCommand)
	x.WriteFile("README.md", "README-BODY-7731\n")
	r := x.RunStream("/checkin")
	mustSucceed(t, r)
	if _, err := os.Stat(filepath.Join(x.Work, "marker")); err == nil {
		t.Fatal("a refused ! command ran (marker made)")
	}
	txt := requestText(x.lastMain())
	if !strings.Contains(txt, "[!`touch marker` was not run: the folder is not trusted") || strings.Contains(txt, "Say: hi-from-shell") ||
		!strings.Contains(txt, "tandem trust ") || !strings.Contains(txt, "README-BODY-7731") {
		t.Errorf("the prompt does not say the commands were refused for trust:\n%s", txt)
	}
	if notes := commandNotes(r); len(notes) != 2 || !strings.Contains(notes[1], "touch marker") {
		t.Errorf("status notes = %v", notes)
	}
}

// A deny rule holds even in a trusted folder whose command allows the tool.
func TestCommandInlineDenyRuleWins(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("noted")}})
	x.WriteFile(".claude/commands/checkin.md", inlineCommand)
	x.WriteFile("README.md", "r\n")
	x.WriteFile(".claude/settings.json", `{"permissions":{"deny":["Bash(touch:*)"]}}`)
	if tr := x.Run("trust", x.Work); tr.Code != 0 {
		t.Fatalf("trust: %s", tr.Stderr)
	}
	r := x.RunStream("/checkin")
	mustSucceed(t, r)
	if _, err := os.Stat(filepath.Join(x.Work, "marker")); err == nil {
		t.Fatal("a denied ! command ran (marker made)")
	}
	if txt := requestText(x.lastMain()); !strings.Contains(txt, "[!`touch marker` was not run: permission denied: denied by rule Bash(touch:*)") {
		t.Errorf("the prompt does not name the deny rule:\n%s", txt)
	}
}

// @ of a file outside the repository, a link out of it or a FIFO is
// refused with a message saying why; nothing of them reaches the model.
func TestCommandMentionRefusals(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("noted")}})
	outside := filepath.Join(filepath.Dir(x.Work), "outside.txt")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(x.Work, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(x.Work, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.WriteFile(".claude/commands/peek.md", "Peek at @../outside.txt and @link.txt and @pipe\n")
	if tr := x.Run("trust", x.Work); tr.Code != 0 {
		t.Fatalf("trust: %s", tr.Stderr)
	}
	r := x.RunStream("/peek")
	mustSucceed(t, r)
	txt := requestText(x.lastMain())
	if strings.Contains(txt, "OUTSIDE-SECRET") {
		t.Fatalf("a refused file reached the model:\n%s", txt)
	}
	for _, want := range []string{"[@../outside.txt was not included: refused:", "outside the repository",
		"[@link.txt was not included: refused:", "[@pipe was not included: refused:"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, txt)
		}
	}
	if notes := commandNotes(r); len(notes) != 3 {
		t.Errorf("status notes = %v", notes)
	}
}

// The Claude Code drop-in (tandem with Claude's flags, as an Agent SDK
// runs it) expands a command in the same place: the output and the file
// reach the model there too.
func TestCommandInlineDropIn(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("noted")}})
	x.WriteFile(".claude/commands/checkin.md", inlineCommand)
	x.WriteFile("README.md", "README-BODY-7731\n")
	if tr := x.Run("trust", x.Work); tr.Code != 0 {
		t.Fatalf("trust: %s", tr.Stderr)
	}
	r := x.Run("-p", "/checkin", "--output-format", "stream-json", "--verbose")
	if r.Code != 0 {
		t.Fatalf("drop-in run: exit %d\n%s", r.Code, r.Stderr)
	}
	txt := requestText(x.lastMain())
	if !strings.Contains(txt, "Say: hi-from-shell") || !strings.Contains(txt, "<file path=\"README.md\">\nREADME-BODY-7731") {
		t.Errorf("the model's request:\n%s", txt)
	}
	if _, err := os.Stat(filepath.Join(x.Work, "marker")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}
