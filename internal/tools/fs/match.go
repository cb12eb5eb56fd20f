package fs

import (
	"regexp"
	"strings"
	"unicode"
)

// The tolerant matchers, tried in this order when old_string is not found
// verbatim (docs/tools.md explains each). Stricter ideas come first so that
// the loosest ones only run when nothing better fits:
//
//  1. trimmed-lines: every line equal once surrounding whitespace is trimmed.
//  2. block-anchors: first and last lines equal (trimmed), the lines between
//     similar on average (Levenshtein >= blockSimilarity); 3+ line blocks.
//  3. whitespace-normalized: equal once runs of whitespace are collapsed.
//  4. indentation-flexible: equal once the common indentation is removed.
//  5. escape-normalized: old_string over-escaped (\n, \t, \", \\ ...).
//  6. trimmed-boundaries: old_string without surrounding blank space.
//  7. context-aware: first and last lines anchor, at least half the lines
//     between equal (trimmed), same line count; 3+ line blocks.
//
// A matcher's result is used only when it names one place in the file.
func tolerantMatchers() []matcher {
	return []matcher{
		{"trimmed-lines", findTrimmedLines},
		{"block-anchors", findBlockAnchors},
		{"whitespace-normalized", findWhitespaceNormalized},
		{"indentation-flexible", findIndentationFlexible},
		{"escape-normalized", findEscapeNormalized},
		{"trimmed-boundaries", findTrimmedBoundaries},
		{"context-aware", findContextAware},
	}
}

const (
	// blockSimilarity is the least average similarity of the middle lines
	// for block-anchors.
	blockSimilarity = 0.75
	// maxAnchoredLines bounds the fuzzy block matchers' work: a block that
	// long should be sent exactly.
	maxAnchoredLines = 400
)

type matcher struct {
	name string
	find func(q *query) []candidate
}

// query is one old_string/new_string pair against one content.
type query struct {
	ix       *textIndex
	old, new string
	// oldLines are old's lines without the empty one a final newline leaves;
	// trailingNL records that newline.
	oldLines   []string
	trailingNL bool
}

func newQuery(ix *textIndex, old, new string) *query {
	q := &query{ix: ix, old: old, new: new, oldLines: strings.Split(old, "\n")}
	if n := len(q.oldLines); n > 1 && q.oldLines[n-1] == "" {
		q.oldLines, q.trailingNL = q.oldLines[:n-1], true
	}
	return q
}

// candidate is one place a matcher found, with the text to put there.
type candidate struct {
	span
	replacement string
	// target is what the matcher looked for (old_string after unescaping or
	// trimming), for the size guard.
	target     string
	reindented bool
}

// lineCandidate makes a candidate of whole lines [from, to), re-indenting
// new_string when the file's indentation differs from old_string's.
func (q *query) lineCandidate(from, to int) candidate {
	sp := q.ix.lineSpan(from, to)
	if q.trailingNL && sp.end < len(q.ix.content) && q.ix.content[sp.end] == '\n' {
		sp.end++
	}
	repl, changed := reindent(q.new, q.oldLines, q.ix.lines[from:to])
	return candidate{span: sp, replacement: repl, target: q.old, reindented: changed}
}

func (q *query) exactCandidates(target, replacement string) []candidate {
	var out []candidate
	if target == "" {
		return nil
	}
	for pos := 0; ; {
		i := strings.Index(q.ix.content[pos:], target)
		if i < 0 {
			return out
		}
		start := pos + i
		out = append(out, candidate{span: span{start, start + len(target)}, replacement: replacement, target: target})
		pos = start + len(target)
	}
}

// windows calls match for each start line whose first line passes first,
// over windows of n lines.
func (q *query) windows(n int, first func(i int) bool, match func(i int) bool) []candidate {
	var out []candidate
	for i := 0; i+n <= len(q.ix.lines); i++ {
		if first(i) && match(i) {
			out = append(out, q.lineCandidate(i, i+n))
		}
	}
	return out
}

func findTrimmedLines(q *query) []candidate {
	want := trimAll(q.oldLines)
	return q.windows(len(want), func(i int) bool { return q.ix.trim(i) == want[0] }, func(i int) bool {
		for j := 1; j < len(want); j++ {
			if q.ix.trim(i+j) != want[j] {
				return false
			}
		}
		return true
	})
}

func findBlockAnchors(q *query) []candidate {
	n := len(q.oldLines)
	want := trimAll(q.oldLines)
	if n < 3 || n > maxAnchoredLines || !distinctiveAnchors(want[0], want[n-1]) {
		return nil
	}
	drift := max(1, n/4)
	var out []candidate
	for i := range q.ix.lines {
		if q.ix.trim(i) != want[0] {
			continue
		}
		for k := i + 2; k < len(q.ix.lines) && k-i+1 <= n+drift; k++ {
			if q.ix.trim(k) != want[n-1] {
				continue
			}
			m := k - i + 1
			if m >= n-drift && middleSimilarity(q.ix, i, m, want) >= blockSimilarity {
				out = append(out, q.lineCandidate(i, k+1))
			}
			break
		}
	}
	return out
}

// middleSimilarity averages the similarity of the lines between the anchors,
// pairing them by position.
func middleSimilarity(ix *textIndex, start, m int, want []string) float64 {
	pairs := min(len(want), m) - 2
	if pairs <= 0 {
		return 1
	}
	total := 0.0
	for j := 1; j <= pairs; j++ {
		a, b := ix.trim(start+j), want[j]
		if a == b {
			total++
		} else {
			total += similarity(a, b)
		}
	}
	return total / float64(pairs)
}

func findWhitespaceNormalized(q *query) []candidate {
	n := len(q.oldLines)
	if n > 1 {
		return q.windows(n, func(i int) bool { return eqCollapsed(q.ix.lines[i], q.oldLines[0]) }, func(i int) bool {
			for j := 1; j < n; j++ {
				if !eqCollapsed(q.ix.lines[i+j], q.oldLines[j]) {
					return false
				}
			}
			return true
		})
	}
	words := strings.Fields(q.oldLines[0])
	if len(words) == 0 {
		return nil
	}
	var re *regexp.Regexp
	var out []candidate
	for i, line := range q.ix.lines {
		if !strings.Contains(line, words[0]) {
			continue
		}
		if eqCollapsed(line, q.oldLines[0]) {
			out = append(out, q.lineCandidate(i, i+1))
			continue
		}
		if q.trailingNL {
			continue // a match inside a line cannot end with old_string's newline
		}
		if re == nil {
			quoted := make([]string, len(words))
			for k, w := range words {
				quoted[k] = regexp.QuoteMeta(w)
			}
			var err error
			if re, err = regexp.Compile(strings.Join(quoted, `\s+`)); err != nil {
				// Invalid UTF-8 makes no pattern; whole lines were compared above.
				return out
			}
		}
		for _, loc := range re.FindAllStringIndex(line, -1) {
			s := q.ix.starts[i]
			out = append(out, candidate{span: span{s + loc[0], s + loc[1]}, replacement: q.new, target: q.old})
		}
	}
	return out
}

func findIndentationFlexible(q *query) []candidate {
	n := len(q.oldLines)
	head := strings.TrimLeft(q.oldLines[0], " \t")
	oldBody := dedent(q.oldLines)
	return q.windows(n, func(i int) bool { return strings.TrimLeft(q.ix.lines[i], " \t") == head }, func(i int) bool {
		got := dedent(q.ix.lines[i : i+n])
		for j := range got {
			if got[j] != oldBody[j] {
				return false
			}
		}
		return true
	})
}

func findEscapeNormalized(q *query) []candidate {
	target := unescape(q.old)
	if target == q.old {
		return nil
	}
	repl := unescape(q.new)
	if out := q.exactCandidates(target, repl); len(out) > 0 {
		return out
	}
	// Over-escaped and re-indented at once: match the unescaped lines
	// loosely, then re-indent the unescaped replacement.
	sub := newQuery(q.ix, target, repl)
	out := findTrimmedLines(sub)
	for i := range out {
		out[i].target = target
	}
	return out
}

func findTrimmedBoundaries(q *query) []candidate {
	target := strings.TrimSpace(q.old)
	if target == q.old || target == "" {
		return nil
	}
	lead := q.old[:strings.Index(q.old, target)]
	trail := q.old[len(lead)+len(target):]
	repl := strings.TrimSuffix(strings.TrimPrefix(q.new, lead), trail)
	return q.exactCandidates(target, repl)
}

func findContextAware(q *query) []candidate {
	n := len(q.oldLines)
	want := trimAll(q.oldLines)
	if n < 3 || n > maxAnchoredLines || !distinctiveAnchors(want[0], want[n-1]) {
		return nil
	}
	return q.windows(n, func(i int) bool { return q.ix.trim(i) == want[0] && q.ix.trim(i+n-1) == want[n-1] }, func(i int) bool {
		considered, equal := 0, 0
		for j := 1; j < n-1; j++ {
			a := q.ix.trim(i + j)
			if a == "" && want[j] == "" {
				continue
			}
			considered++
			if a == want[j] {
				equal++
			}
		}
		return considered == 0 || (equal > 0 && 2*equal >= considered)
	})
}

// distinctiveAnchors refuses anchors like "{" and "}" that would pin a
// block almost anywhere.
func distinctiveAnchors(first, last string) bool {
	n := 0
	for _, r := range first + last {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return first != "" && last != "" && n >= 3
}

func trimAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// eqCollapsed compares a and b with surrounding whitespace ignored and each
// inner run of whitespace counted as one space, without allocating.
func eqCollapsed(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		sa, sb := isSpaceByte(a[i]), isSpaceByte(b[j])
		switch {
		case sa && sb:
			for i < len(a) && isSpaceByte(a[i]) {
				i++
			}
			for j < len(b) && isSpaceByte(b[j]) {
				j++
			}
		case a[i] != b[j]:
			return false
		default:
			i++
			j++
		}
	}
	return i == len(a) && j == len(b)
}

// unescape undoes the escaping a model adds when it writes code as if inside
// a string literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case 'n', '\n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\'', '`', '\\', '$':
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}
