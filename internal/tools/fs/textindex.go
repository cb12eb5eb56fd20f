package fs

import (
	"sort"
	"strings"
)

// textIndex is the content split into lines once, with each line's byte
// offset, so matchers compare lines without copying and spans map back to
// byte ranges cheaply.
type textIndex struct {
	content string
	lines   []string
	starts  []int
	trimmed []string // lazily filled strings.TrimSpace of each line
}

func newTextIndex(content string) *textIndex {
	n := strings.Count(content, "\n") + 1
	ix := &textIndex{content: content, lines: make([]string, 0, n), starts: make([]int, 0, n)}
	pos := 0
	for {
		i := strings.IndexByte(content[pos:], '\n')
		if i < 0 {
			ix.lines = append(ix.lines, content[pos:])
			ix.starts = append(ix.starts, pos)
			break
		}
		ix.lines = append(ix.lines, content[pos:pos+i])
		ix.starts = append(ix.starts, pos)
		pos += i + 1
	}
	return ix
}

// trim returns line i with surrounding whitespace removed (cached: several
// matchers scan every line).
func (ix *textIndex) trim(i int) string {
	if ix.trimmed == nil {
		ix.trimmed = make([]string, len(ix.lines))
		for k, l := range ix.lines {
			ix.trimmed[k] = strings.TrimSpace(l)
		}
	}
	return ix.trimmed[i]
}

// lineSpan is the byte range of lines [from, to): from the start of line
// from to the end of line to-1, without its newline.
func (ix *textIndex) lineSpan(from, to int) span {
	return span{start: ix.starts[from], end: ix.starts[to-1] + len(ix.lines[to-1])}
}

// lineOf returns the 0-based line holding byte offset off.
func (ix *textIndex) lineOf(off int) int {
	return sort.Search(len(ix.starts), func(i int) bool { return ix.starts[i] > off }) - 1
}

// span is a byte range of the content.
type span struct{ start, end int }

func (s span) overlaps(o span) bool { return s.start < o.end && o.start < s.end || s == o }
