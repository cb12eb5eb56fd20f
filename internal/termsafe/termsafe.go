// Package termsafe makes untrusted text (model output, prompts, titles,
// tool output, file names) safe to print on a terminal: control characters
// would otherwise let that text move the cursor, rewrite what is on screen
// (hiding part of a command a permission prompt shows), set the window
// title or worse. Every human-facing printer passes text through it when
// writing to a terminal; JSON output never does.
package termsafe

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// Text escapes control characters in s except newline and tab, which
// multi-line text (an answer, a diff) needs.
func Text(s string) string { return escape(s, true) }

// Line escapes every control character, newlines included: for one-line
// fields such as a session title.
func Line(s string) string { return escape(s, false) }

func escape(s string, keepNewlines bool) string {
	if !needsEscape(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepNewlines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

func needsEscape(s string, keepNewlines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if (c < 0x20 || c == 0x7f) && !(keepNewlines && (c == '\n' || c == '\t')) {
				return true
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && w == 1) || unsafeRune(r) {
			return true
		}
		i += w
	}
	return false
}

// unsafeRune: C1 controls (CSI U+009B starts an escape sequence on many
// terminals) and the bidirectional overrides that reorder what is shown.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// For returns Text when w is a terminal and the identity otherwise (text
// piped to a file keeps its bytes).
func For(w io.Writer) func(string) string {
	if IsTerminal(w) {
		return Text
	}
	return func(s string) string { return s }
}

// LineFor is For with Line.
func LineFor(w io.Writer) func(string) string {
	if IsTerminal(w) {
		return Line
	}
	return func(s string) string { return s }
}

// Writer returns w itself when it is not a terminal, else a writer that
// passes each write through Text. Write whole lines or fields (one Fprintf
// each), so no escape sequence is split between writes.
func Writer(w io.Writer) io.Writer {
	if !IsTerminal(w) {
		return w
	}
	return textWriter{w}
}

type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
