package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownBlocksAndInlines(t *testing.T) {
	md := newMarkdown(newTheme(false))
	src := "# Title\n\nSome **bold**, *italic*, `code`, ~~gone~~ and a [link](https://x.dev) in a\nwrapped paragraph.\n\n" +
		"- one\n- two\n  - nested\n1. first\n2. second\n\n> quoted **text**\n\n```go\nfunc main() {}\n```\n\n" +
		"| a | bb |\n|---|---|\n| 1 | 22 |\n\n---\n\nsnake_case_name stays and 2 * 3 * 4 too."
	got := ansi.Strip(md.render(src, 100))
	for _, want := range []string{"Title", "Some bold, italic, code, gone and a link (https://x.dev) in a wrapped paragraph.",
		"• one", "• two", "  • nested", "1. first", "2. second", "│ quoted text", "go", "│ func main() {}",
		"a │ bb", "──┼─", "1 │ 22", "────", "snake_case_name stays and 2 * 3 * 4 too."} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "**") || strings.Contains(got, "](") {
		t.Errorf("markup left in:\n%s", got)
	}
	// Half-written Markdown (an answer mid-stream) renders without loss.
	half := ansi.Strip(md.render("```py\nprint(1)\nstill **open", 40))
	if !strings.Contains(half, "│ still **open") {
		t.Errorf("unclosed fence: %q", half)
	}
	if s := ansi.Strip(md.render("an **unclosed bold", 40)); s != "an **unclosed bold" {
		t.Errorf("unclosed bold: %q", s)
	}
}

func TestMarkdownWrapsToWidth(t *testing.T) {
	md := newMarkdown(newTheme(false))
	for _, l := range strings.Split(md.render(strings.Repeat("word ", 100)+"\n\n- "+strings.Repeat("item ", 40), 30), "\n") {
		if w := ansi.StringWidth(l); w > 30 {
			t.Fatalf("line %d wide: %q", w, l)
		}
	}
}
