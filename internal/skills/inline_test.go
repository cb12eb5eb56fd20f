package skills

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// fakeInline records what ExpandInline asked for.
type fakeInline struct {
	ran   []string
	read  []string
	deny  map[string]string // command or path -> why
	files map[string]FileRef
}

func (f *fakeInline) Shell(_ context.Context, cmd string) (string, error) {
	if why, ok := f.deny[cmd]; ok {
		return "", errors.New(why)
	}
	f.ran = append(f.ran, cmd)
	return "out(" + cmd + ")\n", nil
}

func (f *fakeInline) File(_ context.Context, path string) (FileRef, error) {
	f.read = append(f.read, path)
	if why, ok := f.deny[path]; ok {
		return FileRef{}, errors.New(why)
	}
	ref, ok := f.files[path]
	if !ok {
		return FileRef{}, fs.ErrNotExist
	}
	return ref, nil
}

func TestExpandInlineShell(t *testing.T) {
	text := "Status: !`git status`\n!`date` and x!`not-a-command` and `!not` either\n" +
		"```!\nls -la\n```\nExample:\n```\n!`rm -rf /`\n```\n````md\n```!\nrm -rf ~\n```\n````\nDenied: !`touch marker`\n"
	f := &fakeInline{deny: map[string]string{"touch marker": "permission denied: nobody to ask"}}
	out, notes := ExpandInline(context.Background(), text, f)
	if got := strings.Join(f.ran, "|"); got != "git status|date|ls -la" {
		t.Errorf("ran %q, want git status|date|ls -la (not the code block's example, not x!`...`)", got)
	}
	for _, want := range []string{"Status: out(git status)\n", "out(date) and x!`not-a-command`", "out(ls -la)\nExample:", "!`rm -rf /`",
		"Denied: [!`touch marker` was not run: permission denied: nobody to ask]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(notes) != 1 || notes[0].What != "!`touch marker`" {
		t.Errorf("notes = %v", notes)
	}
}

func TestExpandInlineMentions(t *testing.T) {
	text := "Read @README.md, then @src and @\"a b.txt\".\nNot mail@example.com, not @missing, not @../outside twice: @../outside.\n" +
		"Run !`cat @notme`\n```\n@Override\n```\n"
	f := &fakeInline{
		deny: map[string]string{"../outside": "refused: outside the repository"},
		files: map[string]FileRef{
			"README.md": {Path: "README.md", Content: "# readme\n"},
			"src":       {Path: "src", Content: "a.go\nsub/", Dir: true},
			"a b.txt":   {Path: "a b.txt", Content: "spaced", Truncated: true},
		},
	}
	out, notes := ExpandInline(context.Background(), text, f)
	if got := strings.Join(f.read, "|"); got != "README.md|src|a b.txt|missing|../outside" {
		t.Errorf("read %q", got)
	}
	for _, want := range []string{"Read README.md, then src and \"a b.txt\".", // used mentions lose their @
		"not @missing, not ../outside twice: ../outside.", // a missing one keeps it
		"<file path=\"README.md\">\n# readme\n</file>", "<directory path=\"src\">\na.go\nsub/\n</directory>",
		"<file path=\"a b.txt\">\nspaced\n[… cut short", "[@../outside was not included: refused: outside the repository]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(notes) != 2 || notes[0].What != "@missing" || notes[1].What != "@../outside" {
		t.Errorf("notes = %v", notes)
	}
}

func TestExpandInlinePlainTextUnchanged(t *testing.T) {
	for _, text := range []string{"", "no forms here", "an email a@b.c", "a `!backtick` and x!`y`"} {
		f := &fakeInline{}
		if out, notes := ExpandInline(context.Background(), text, f); out != text || notes != nil || len(f.ran)+len(f.read) != 0 {
			t.Errorf("%q became %q (notes %v, ran %v, read %v)", text, out, notes, f.ran, f.read)
		}
	}
}

func TestExpandInlineMentionCap(t *testing.T) {
	var b strings.Builder
	f := &fakeInline{files: map[string]FileRef{}}
	for i := 0; i < MaxMentions+3; i++ {
		p := "f" + strings.Repeat("x", i)
		b.WriteString("@" + p + " ")
		f.files[p] = FileRef{Path: p, Content: "c"}
	}
	_, notes := ExpandInline(context.Background(), b.String(), f)
	if len(f.read) != MaxMentions || len(notes) != 3 {
		t.Errorf("read %d files with %d notes; want %d and 3", len(f.read), len(notes), MaxMentions)
	}
}
