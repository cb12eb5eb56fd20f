package shell

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// literal returns the word as bash would pass it after quote removal, and
// whether the word is a plain literal. Anything bash would still expand
// (parameters, substitutions, arithmetic, brace expansion, unquoted glob
// characters) makes it not literal. The text is built with expand.Literal,
// never from Lit.Value, where backslashes survive (`--outpu\t`).
func literal(word *syntax.Word) (string, bool) {
	s, k := classify(word)
	return s, k == wordLiteral
}

type wordKind int

const (
	wordLiteral wordKind = iota
	wordGlob             // literal except for unquoted glob characters
	wordDynamic
)

// classify is literal with one more answer: a word that is literal except
// for unquoted glob characters (`*.go`) comes back as wordGlob with its
// text, so that programs without dangerous flags may still read it.
func classify(word *syntax.Word) (string, wordKind) {
	if word == nil {
		return "", wordDynamic
	}
	kind := wordLiteral
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasBraceExpansion(p.Value) {
				return "", wordDynamic
			}
			if hasUnquotedGlob(p.Value) {
				kind = wordGlob
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", wordDynamic
				}
			}
		default:
			return "", wordDynamic
		}
	}
	var b strings.Builder
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			b.WriteString(unescapeUnquoted(lit.Value))
			continue
		}
		// Quoted parts: expand.Literal handles $'...' escapes and the
		// backslash rules inside double quotes.
		s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
		if err != nil {
			return "", wordDynamic
		}
		b.WriteString(s)
	}
	return b.String(), kind
}

// unescapeUnquoted removes the backslashes bash removes from an unquoted
// word (expand.Literal leaves them: `--outpu\t` must read `--output`).
func unescapeUnquoted(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			if v[i] == '\n' {
				continue // line continuation
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// hasUnquotedGlob reports glob characters bash would expand in an unquoted
// literal (a file named `-delete` matched by `*` becomes a flag).
func hasUnquotedGlob(v string) bool {
	escaped := false
	for i := 0; i < len(v); i++ {
		if escaped {
			escaped = false
			continue
		}
		switch v[i] {
		case '\\':
			escaped = true
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// hasBraceExpansion reports `{a,b}` and `{1..3}` forms (`{-rf,x}` becomes
// two words).
func hasBraceExpansion(v string) bool {
	escaped := false
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if escaped {
			escaped = false
			continue
		}
		switch ch {
		case '\\':
			escaped = true
		case '{':
			rest := v[i:]
			if end := strings.IndexByte(rest, '}'); end > 0 {
				inner := rest[1:end]
				if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
					return true
				}
			}
		}
	}
	return false
}

// wordText is the word's source form, used where it is not a literal.
func wordText(word *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, word); err != nil {
		return "?"
	}
	return b.String()
}
