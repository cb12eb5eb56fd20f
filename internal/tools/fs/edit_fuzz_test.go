package fs

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzEditMatcher feeds Edit's matcher cascade (through PlanEdit, which
// the permission preview and the tool share) edits grown from every case
// of TestApplyEditTable, as LF, CRLF and BOM files. Properties, for every
// edit that succeeds:
//   - PlanEdit's bytes are the cascade's text in the file's encoding, the
//     same every time;
//   - the unified diff it returns, applied to the old text, gives the new
//     text (so the preview shows exactly what is written);
//   - an exact match is plain replacement (of the one place, or of every
//     place with replace_all);
//   - a tolerant match still contains new_string once whitespace is
//     ignored (re-indenting and trimming change only whitespace), or its
//     unescaped form for the escape-normalized matcher.
//
// CI runs it for a few seconds (scripts/test); see docs/ARCHITECTURE.md
// (Testing) for longer runs.
func FuzzEditMatcher(f *testing.F) {
	for _, c := range editCases() {
		f.Add(c.content, c.old, c.new, c.all)
		f.Add(strings.ReplaceAll(c.content, "\n", "\r\n"), c.old, c.new, c.all)
		f.Add(bom+c.content, c.old, c.new, c.all)
	}
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		got, diff, err := PlanEdit("f.txt", content, old, new, all)
		got2, diff2, err2 := PlanEdit("f.txt", content, old, new, all)
		if got != got2 || diff != diff2 || fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatalf("PlanEdit differs between two calls")
		}
		doc := decodeDoc([]byte(content))
		ap, msg := applyEdit(doc.text, editOp{Old: old, New: new, ReplaceAll: all})
		if (msg == "") != (err == nil) {
			t.Fatalf("PlanEdit error %v, cascade message %q", err, msg)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("an edit failed without saying why")
			}
			return
		}
		if want := string(doc.encode(ap.text)); got != want {
			t.Fatalf("PlanEdit wrote %q, the cascade's text encoded is %q", got, want)
		}
		patched, perr := applyUnified(doc.text, diff)
		if perr != nil || patched != ap.text {
			t.Fatalf("the diff does not describe the edit (%v):\n%s\nold %q\nnew %q\npatched %q", perr, diff, doc.text, ap.text, patched)
		}
		nold, nnew := normalizeInput(old), normalizeInput(new)
		switch {
		case ap.matcher == exactMatcher && nold == "":
			if ap.text != nnew {
				t.Fatalf("an edit of an empty file gave %q, want new_string %q", ap.text, nnew)
			}
		case ap.matcher == exactMatcher && all:
			if want := strings.ReplaceAll(doc.text, nold, nnew); ap.text != want {
				t.Fatalf("replace_all gave %q, want %q", ap.text, want)
			}
		case ap.matcher == exactMatcher:
			if strings.Count(doc.text, nold) != 1 {
				t.Fatalf("exact edit of %q, which occurs %d times", nold, strings.Count(doc.text, nold))
			}
			if want := strings.Replace(doc.text, nold, nnew, 1); ap.text != want {
				t.Fatalf("exact edit gave %q, want %q", ap.text, want)
			}
		default:
			s := squashSpace(ap.text)
			if !strings.Contains(s, squashSpace(nnew)) && !strings.Contains(s, squashSpace(unescape(nnew))) {
				t.Fatalf("%s match: the result %q does not contain new_string %q", ap.matcher, ap.text, nnew)
			}
		}
	})
}

// squashSpace drops every whitespace character and keeps every other
// byte as it is: a file need not be UTF-8, and a stray byte of new_string
// can join the file's next bytes into one character ("\xc5" before "\x81"
// is "Ł"), which a rune-by-rune copy would turn into U+FFFD on one side
// only.
func squashSpace(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// applyUnified applies a unified diff as unifiedDiff writes it (hunks in
// order, "\ No newline at end of file" markers) to before, checking every
// context and removed line against it.
func applyUnified(before, diff string) (string, error) {
	if diff == "" {
		return before, nil
	}
	src := splitKeep(before)
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no file header")
	}
	var out strings.Builder
	pos := 0 // next line of src to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		start, err := hunkStart(lines[i])
		if err != nil {
			return "", err
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q starts at line %d, before line %d or past the end", lines[i], start, pos)
		}
		for ; pos < start; pos++ {
			out.WriteString(src[pos])
		}
		for i++; i < len(lines) && lines[i] != "" && lines[i][0] != '@'; i++ {
			l := lines[i]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				l = strings.TrimSuffix(l, "\n")
				i++
			}
			body := l[1:]
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					return "", fmt.Errorf("line %d is not %q", pos+1, body)
				}
				pos++
				if l[0] == ' ' {
					out.WriteString(body)
				}
			case '+':
				out.WriteString(body)
			default:
				return "", fmt.Errorf("unexpected diff line %q", l)
			}
		}
	}
	for ; pos < len(src); pos++ {
		out.WriteString(src[pos])
	}
	return out.String(), nil
}

// hunkStart reads the 0-based old line a hunk header's range starts at
// ("-3,0" inserts after line 3; "-3" and "-3,2" start at line 3).
func hunkStart(h string) (int, error) {
	rest, ok := strings.CutPrefix(h, "@@ -")
	if !ok {
		return 0, fmt.Errorf("not a hunk header: %q", h)
	}
	r, _, _ := strings.Cut(rest, " ")
	num, count, hasCount := strings.Cut(r, ",")
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, fmt.Errorf("hunk header %q: %w", h, err)
	}
	if hasCount && count == "0" {
		return n, nil
	}
	return n - 1, nil
}
