package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// renderItem draws one item at width (details: thinking and full tool
// output shown).
func renderItem(it *item, th *theme, width int, details bool) []string {
	switch it.kind {
	case kindUser:
		return prefixed(wrap(it.text, width-2), th.user.Render("› "), "  ", th.bold)
	case kindAssistant:
		return prefixedRaw(assistantLines(it, th, width-2), th.accent.Render("● "), "  ")
	case kindThinking:
		n := strings.Count(strings.TrimSpace(it.text), "\n") + 1
		if !details {
			label := fmt.Sprintf("∴ Thinking (%d lines, ctrl+o to show)", n)
			if it.streaming {
				label = "∴ Thinking…"
			}
			return []string{th.dim.Render(label)}
		}
		out := []string{th.dim.Render("∴ Thinking")}
		return append(out, prefixed(wrap(it.text, width-2), "  ", "  ", th.faint)...)
	case kindTool:
		return renderTool(it.tool, th, width, details, 0)
	case kindNotice:
		st, mark := th.dim, "· "
		switch it.level {
		case levelWarn:
			st, mark = th.warn, "! "
		case levelError:
			st, mark = th.err, "✗ "
		}
		return prefixed(wrap(it.text, width-2), st.Render(mark), "  ", st)
	case kindTodo:
		out := []string{th.bold.Render("Tasks")}
		for _, td := range it.todos {
			box, st := "☐ ", th.faint
			switch td.status {
			case "in_progress":
				box, st = "◐ ", th.warn
			case "completed":
				box, st = "☑ ", th.ok
			}
			out = append(out, prefixed(wrap(td.content, width-4), "  "+st.Render(box), "    ", st)...)
		}
		return out
	}
	return nil
}

// wrap breaks text to width (ANSI-aware), keeping its own line breaks.
func wrap(s string, width int) []string {
	if width < 4 {
		width = 4
	}
	s = strings.ReplaceAll(strings.TrimRight(s, "\n"), "\t", "    ")
	return splitLines(ansi.Wrap(s, width, ""))
}

// prefixed styles each line and prefixes the first with first, the rest
// with rest.
func prefixed(lines []string, first, rest string, st interface{ Render(...string) string }) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		out[i] = p + st.Render(l)
	}
	return out
}

func prefixedRaw(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		out[i] = p + l
	}
	return out
}

// assistantLines renders an answer. While it streams, the blocks before
// the last blank line outside a code fence are final: they are rendered
// once and kept, so a frame costs the block being written, not the whole
// answer (which would grow slower with every line).
func assistantLines(it *item, th *theme, width int) []string {
	if !it.streaming {
		it.stableCut, it.stableLines = 0, nil
		return splitLines(th.md.render(it.text, width))
	}
	if it.stableW != width {
		it.stableCut, it.stableLines, it.stableW = 0, nil, width
	}
	if cut := stableCut(it.text, it.stableCut); cut > it.stableCut {
		if chunk := strings.TrimSpace(it.text[it.stableCut:cut]); chunk != "" {
			if len(it.stableLines) > 0 {
				it.stableLines = append(it.stableLines, "")
			}
			it.stableLines = append(it.stableLines, splitLines(th.md.render(chunk, width))...)
		}
		it.stableCut = cut
	}
	out := append([]string{}, it.stableLines...)
	if tail := strings.TrimSpace(it.text[it.stableCut:]); tail != "" {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, splitLines(th.md.render(tail, width))...)
	}
	return out
}

// stableCut is the offset after the last blank line outside a code fence,
// scanning from from (itself such an offset).
func stableCut(s string, from int) int {
	cut, inFence := from, false
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break // the last line is still being written
		}
		line := strings.TrimSpace(s[i : i+j])
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
		}
		i += j + 1
		if line == "" && !inFence {
			cut = i
		}
	}
	return cut
}
