package fs

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// notFoundContextLines is how many old_string lines the closest-region
// search considers; enough to place a block, cheap on big files.
const notFoundContextLines = 30

var readPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+\t`) })

// notFoundMessage explains a failed match and shows the part of the file
// most like old_string, so the model's next call can copy the real text.
func notFoundMessage(ix *textIndex, old string) string {
	var b strings.Builder
	b.WriteString("old_string was not found in the file (not even with whitespace, indentation or escaping differences).")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if from, to, ok := closestRegion(ix, oldLines); ok {
		fmt.Fprintf(&b, " The most similar part of the file is lines %d-%d:\n", from+1, to)
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "%6d\t%s\n", i+1, truncateRunes(ix.lines[i], maxLineChars))
		}
	} else {
		b.WriteString(" Nothing in the file looks similar.\n")
	}
	if looksLikeReadOutput(oldLines) {
		b.WriteString("old_string seems to include the line-number prefixes of the Read output; leave them out and keep only the text after the tab.\n")
	}
	b.WriteString("Read the file again if it may have changed, then retry with old_string copied exactly from the file.")
	return b.String()
}

func looksLikeReadOutput(lines []string) bool {
	for _, l := range lines {
		if !readPrefix().MatchString(l) {
			return false
		}
	}
	return len(lines) > 0
}

// closestRegion scores every window of the file by how many of old_string's
// words each line shares with the line at the same position, and returns
// the best window with a little context around it.
func closestRegion(ix *textIndex, oldLines []string) (from, to int, ok bool) {
	if len(oldLines) > notFoundContextLines {
		oldLines = oldLines[:notFoundContextLines]
	}
	want := make([][]string, len(oldLines))
	for i, l := range oldLines {
		want[i] = wordSet(l)
	}
	have := make([][]string, len(ix.lines))
	for i, l := range ix.lines {
		have[i] = wordSet(truncateRunes(l, maxSimilarityRunes))
	}
	best, bestAt := 0.0, -1
	for i := range ix.lines {
		score := 0.0
		for j := 0; j < len(want) && i+j < len(ix.lines); j++ {
			score += jaccard(have[i+j], want[j])
		}
		if score > best {
			best, bestAt = score, i
		}
	}
	if bestAt < 0 || best < 0.3 {
		return 0, 0, false
	}
	from = max(bestAt-2, 0)
	to = min(bestAt+len(oldLines)+2, len(ix.lines))
	return from, to, true
}

func wordSet(s string) []string {
	ws := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	sort.Strings(ws)
	out := ws[:0]
	for i, w := range ws {
		if i == 0 || w != ws[i-1] {
			out = append(out, w)
		}
	}
	return out
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
