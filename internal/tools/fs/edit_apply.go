package fs

import (
	"fmt"
	"strings"
)

// editOp is one replacement the model asked for.
type editOp struct {
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// applied is the outcome of one editOp on a text.
type applied struct {
	text         string
	matcher      string // "exact" or a tolerant matcher's name
	replacements int
	reindented   bool
	startLine    int // 1-based line in the old text where the change starts
}

const exactMatcher = "exact"

// maxListedMatches bounds the line numbers an ambiguity error lists.
const maxListedMatches = 20

// applyEdit performs op on text (LF endings, no BOM). The error string is
// for the model; text is unchanged when it is set.
func applyEdit(text string, op editOp) (applied, string) {
	old, repl := normalizeInput(op.Old), normalizeInput(op.New)
	switch {
	case old == repl:
		return applied{}, "old_string and new_string are identical, so there is nothing to change. Provide the new text in new_string."
	case old == "" && text != "":
		return applied{}, "old_string is empty, but the file is not. Give the exact text to replace in old_string (copy it from the Read output, without line numbers), or use Write to replace the whole file."
	case old == "":
		return applied{text: repl, matcher: exactMatcher, replacements: 1, startLine: 1}, ""
	}
	ix := newTextIndex(text)
	exact := newQuery(ix, old, repl).exactCandidates(old, repl)
	if op.ReplaceAll {
		if len(exact) == 0 {
			return applied{}, notFoundMessage(ix, old) + "\nNote: replace_all only replaces exact matches of old_string."
		}
		return applied{text: strings.ReplaceAll(text, old, repl), matcher: exactMatcher,
			replacements: len(exact), startLine: ix.lineOf(exact[0].start) + 1}, ""
	}
	switch len(exact) {
	case 1:
		return splice(ix, exact[0], exactMatcher), ""
	case 0:
	default:
		return applied{}, ambiguityMessage(ix, exact, "", true)
	}
	if strings.TrimSpace(old) == "" {
		// Blank text matches blank lines anywhere; only an exact match counts.
		return applied{}, "old_string holds only whitespace and does not occur verbatim in the file. Include a neighbouring non-blank line in old_string so the place is unambiguous."
	}
	return applyTolerant(ix, old, repl)
}

// applyTolerant runs the tolerant matchers in order. The first one that
// finds exactly one place wins. Once a matcher has found several places,
// later matchers may only pick one of those places (a stricter matcher can
// settle the choice; a looser one must not wander elsewhere).
func applyTolerant(ix *textIndex, old, repl string) (applied, string) {
	q := newQuery(ix, old, repl)
	var ambiguous []candidate
	ambiguousBy := ""
	for _, m := range tolerantMatchers() {
		cands := dedupe(m.find(q))
		if len(cands) == 0 {
			continue
		}
		if len(cands) > 1 {
			if ambiguous == nil {
				ambiguous, ambiguousBy = cands, m.name
			}
			continue
		}
		c := cands[0]
		if ambiguous != nil && !overlapsAny(c.span, ambiguous) {
			continue
		}
		matched := ix.content[c.start:c.end]
		if disproportionate(matched, c.target) {
			from, to := ix.lineOf(c.start)+1, ix.lineOf(max(c.end-1, c.start))+1
			return applied{}, fmt.Sprintf("Refusing the edit: old_string did not match exactly, and the closest match (%s matcher, lines %d-%d) is much larger than old_string. Read the file again and send the exact text to replace.", m.name, from, to)
		}
		return splice(ix, c, m.name), ""
	}
	if ambiguous != nil {
		return applied{}, ambiguityMessage(ix, ambiguous, ambiguousBy, false)
	}
	return applied{}, notFoundMessage(ix, old)
}

func splice(ix *textIndex, c candidate, matcher string) applied {
	text := ix.content[:c.start] + c.replacement + ix.content[c.end:]
	return applied{text: text, matcher: matcher, replacements: 1, reindented: c.reindented, startLine: ix.lineOf(c.start) + 1}
}

func dedupe(cs []candidate) []candidate {
	out := cs[:0:0]
	for _, c := range cs {
		dup := false
		for _, o := range out {
			if o.span == c.span {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

func overlapsAny(s span, cs []candidate) bool {
	for _, c := range cs {
		if s.overlaps(c.span) {
			return true
		}
	}
	return false
}

// disproportionate reports a tolerant match much larger than what was
// asked for (more than 1.5 times the lines or the non-blank characters),
// which would replace text the model did not mean to touch.
func disproportionate(matched, target string) bool {
	ml := strings.Count(strings.TrimRight(matched, "\n"), "\n") + 1
	tl := strings.Count(strings.TrimRight(target, "\n"), "\n") + 1
	if ml > tl+1 && 2*ml > 3*tl {
		return true
	}
	mc, tc := nonSpaceCount(matched), nonSpaceCount(target)
	return 2*mc > 3*tc+32
}

func nonSpaceCount(s string) int {
	n := 0
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			n++
		}
	}
	return n
}

func ambiguityMessage(ix *textIndex, cands []candidate, matcher string, exact bool) string {
	lines := make([]string, 0, min(len(cands), maxListedMatches))
	for i, c := range cands {
		if i == maxListedMatches {
			lines = append(lines, "...")
			break
		}
		lines = append(lines, fmt.Sprint(ix.lineOf(c.start)+1))
	}
	where := strings.Join(lines, ", ")
	if exact {
		return fmt.Sprintf("Found %d matches of old_string (starting at lines %s), but replace_all is false. Add more surrounding lines to old_string so that it matches only the place you mean, or set replace_all to true to replace every occurrence.", len(cands), where)
	}
	return fmt.Sprintf("old_string does not match exactly, and the tolerant %s matcher found %d similar places (starting at lines %s), so it cannot tell which one you mean. Copy old_string exactly from the Read output (without line numbers) and add surrounding lines that make it unique.", matcher, len(cands), where)
}
