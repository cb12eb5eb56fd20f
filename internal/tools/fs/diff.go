package fs

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

const diffContext = 3

// unifiedDiff returns a unified diff of before and after (LF text) labelled
// with path. Only the region between the first and last changed line is
// handed to the diff library, so a one-line edit of a 20k-line file costs
// little; hunk headers carry the real line numbers.
func unifiedDiff(path, before, after string) string {
	if before == after {
		return ""
	}
	a, b := splitKeep(before), splitKeep(after)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	lo := max(pre-diffContext, 0)
	aHi, bHi := min(len(a)-suf+diffContext, len(a)), min(len(b)-suf+diffContext, len(b))
	m := difflib.NewMatcher(a[lo:aHi], b[lo:bHi])
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", path, path)
	for _, group := range m.GetGroupedOpCodes(diffContext) {
		first, last := group[0], group[len(group)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(lo+first.I1, lo+last.I2), hunkRange(lo+first.J1, lo+last.J2))
		for _, op := range group {
			if op.Tag == 'e' {
				writeLines(&sb, " ", a[lo+op.I1:lo+op.I2])
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				writeLines(&sb, "-", a[lo+op.I1:lo+op.I2])
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				writeLines(&sb, "+", b[lo+op.J1:lo+op.J2])
			}
		}
	}
	return sb.String()
}

// splitKeep splits into lines; a final line without newline is marked so
// the diff shows that change too.
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeLines(sb *strings.Builder, prefix string, lines []string) {
	for _, l := range lines {
		sb.WriteString(prefix)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, stop int) string {
	switch n := stop - start; n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	default:
		return fmt.Sprintf("%d,%d", start+1, n)
	}
}

// diffStats counts added and removed lines of a unified diff.
func diffStats(d string) (added, removed int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// snippet renders lines around a change in the new text, cat -n style, so
// the model sees the result without another Read.
func snippet(text string, startLine, changedLines int) string {
	lines := strings.Split(text, "\n")
	from := max(startLine-1-4, 0)
	to := min(startLine-1+changedLines+4, len(lines))
	if to-from > 60 {
		to = from + 60
	}
	var sb strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&sb, "%6d\t%s\n", i+1, truncateRunes(lines[i], maxLineChars))
	}
	return strings.TrimSuffix(sb.String(), "\n")
}
