package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// `tandem sessions export --format markdown` writes the conversation for
// people: prompt (with its image named), tool call and result folded, the
// answer; a tool's output holding backticks stays inside its fence.
func TestE2EExportMarkdown(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "notes.md"})),
		scripted.TextStep("The notes hold **one** code block."),
	}})
	x.WriteFile("notes.md", "```go\nfmt.Println(1)\n```\n")
	x.WriteFile("shot.png", string(testPNG(t)))
	r := x.RunStream("summarise notes.md", "--image", "shot.png")
	mustSucceed(t, r)
	id := r.Result().SessionID

	out := x.Run("sessions", "export", "--format", "markdown", id)
	if out.Code != 0 {
		t.Fatalf("export: exit %d\n%s", out.Code, out.Stderr)
	}
	md := out.Stdout
	for _, want := range []string{
		"- Session: `" + id + "`",
		"## User\n\n> summarise notes.md\n",
		"*[image: image/png, 0 KiB]*",
		"<details><summary>Tool call: Read</summary>",
		"\"file_path\": \"notes.md\"",
		"<details><summary>Result of Read</summary>\n\n````\n",
		"## Assistant\n\nThe notes hold **one** code block.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if bad := x.Run("sessions", "export", "--format", "html", id); bad.Code == 0 || !strings.Contains(bad.Stderr, "use json or markdown") {
		t.Errorf("--format html: exit %d\n%s", bad.Code, bad.Stderr)
	}
}
