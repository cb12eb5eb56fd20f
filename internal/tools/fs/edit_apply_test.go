package fs

import (
	"strings"
	"testing"
)

// editCase is one edit and its expected outcome.
type editCase struct {
	name     string
	content  string
	old, new string
	all      bool
	want     string // whole resulting text
	matcher  string // expected matcher when want is set
	errHas   string // substring of the error when the edit must fail
}

// editCases are the matcher cascade's cases; FuzzEditMatcher starts from
// them.
func editCases() []editCase {
	return []editCase{
		// exact
		{name: "exact single", content: "old content here", old: "old content", new: "new content", want: "new content here", matcher: "exact"},
		{name: "exact mid-line substring", content: "    return x\n", old: "return x", new: "return y", want: "    return y\n", matcher: "exact"},
		{name: "exact multi-line", content: "a\nb\nc\n", old: "b\nc", new: "B\nC", want: "a\nB\nC\n", matcher: "exact"},
		{name: "multi-line new", content: "line1\nline2\nline3", old: "line2", new: "line2a\nline2b", want: "line1\nline2a\nline2b\nline3", matcher: "exact"},
		{name: "delete text", content: "keep\ndrop\nkeep2\n", old: "drop\n", new: "", want: "keep\nkeep2\n", matcher: "exact"},
		{name: "regex metacharacters", content: "re := /[.*+?^${}()|[\\]\\\\]/g\n", old: "/[.*+?^${}()|[\\]\\\\]/g", new: "/x/", want: "re := /x/\n", matcher: "exact"},
		{name: "regex-like anchors", content: "pattern ^start.*end$ here", old: "^start.*end$", new: "X", want: "pattern X here", matcher: "exact"},
		{name: "dollar signs in new are literal", content: "a = 1", old: "a = 1", new: "a = $1 $& $$", want: "a = $1 $& $$", matcher: "exact"},
		{name: "unicode and emoji", content: "say(\"Hello 世界! 🌍\")\n", old: "Hello 世界! 🌍", new: "Hi 世界 🚀", want: "say(\"Hi 世界 🚀\")\n", matcher: "exact"},
		{name: "literal backslash n exact", content: "fmt.Printf(\"a\\n\")\n", old: "fmt.Printf(\"a\\n\")", new: "fmt.Println(\"a\")", want: "fmt.Println(\"a\")\n", matcher: "exact"},
		{name: "windows path exact", content: `p := "C:\Users"`, old: `"C:\Users"`, new: `"D:\Data"`, want: `p := "D:\Data"`, matcher: "exact"},
		{name: "CRLF old normalised", content: "a\nb\nc\n", old: "a\r\nb", new: "A\r\nB", want: "A\nB\nc\n", matcher: "exact"},
		{name: "BOM in old stripped", content: "using System;\n", old: "\uFEFFusing System;", new: "using Up;", want: "using Up;\n", matcher: "exact"},
		// replace_all
		{name: "replace_all", content: "foo bar foo baz foo", old: "foo", new: "qux", all: true, want: "qux bar qux baz qux", matcher: "exact"},
		{name: "replace_all lines", content: "debug\nx\ndebug\ndebug\n", old: "debug", new: "info", all: true, want: "info\nx\ninfo\ninfo\n", matcher: "exact"},
		{name: "replace_all is literal only", content: "  foo  \n", old: "foo   bar", new: "x", all: true, errHas: "replace_all only replaces exact"},
		// errors
		{name: "identical", content: "a", old: "a", new: "a", errHas: "identical"},
		{name: "both empty", content: "", old: "", new: "", errHas: "identical"},
		{name: "empty old on non-empty", content: "text", old: "", new: "x", errHas: "old_string is empty"},
		{name: "empty old on empty file", content: "", old: "", new: "hello\n", want: "hello\n", matcher: "exact"},
		{name: "exact ambiguous", content: "x = 1\ny = 2\nx = 1\n", old: "x = 1", new: "x = 3", errHas: "Found 2 matches of old_string (starting at lines 1, 3)"},
		{name: "ambiguous three", content: "test\nfoo\ntest\nbar\ntest\n", old: "test", new: "t", errHas: "Found 3 matches"},
		{name: "not found", content: "alpha\nbeta\n", old: "gamma delta", new: "x", errHas: "not found"},
		{name: "whitespace-only old not tolerated", content: "a\n\nb\n", old: "  \n", new: "x\n", errHas: "only whitespace"},
		{name: "whitespace-only old exact", content: "a\n  \nb\n", old: "  \n", new: "", want: "a\nb\n", matcher: "exact"},
		// tolerant: trimmed lines and indentation
		{name: "deindented block", content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", old: "if x {\n\treturn 1\n}", new: "if x {\n\treturn 2\n}", want: "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n", matcher: "trimmed-lines"},
		{name: "spaces for tabs", content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", old: "    if x {\n        return 1\n    }", new: "    if x {\n        log()\n        return 1\n    }", want: "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 1\n\t}\n}\n", matcher: "trimmed-lines"},
		{name: "tabs for spaces", content: "def f():\n    if x:\n        return 1\n", old: "\tif x:\n\t\treturn 1", new: "\tif x:\n\t\treturn 2", want: "def f():\n    if x:\n        return 2\n", matcher: "trimmed-lines"},
		{name: "python reindent deeper new line", content: "class A:\n    def f(self):\n        a = 1\n        b = 2\n", old: "def f(self):\n    a = 1\n    b = 2", new: "def f(self):\n    a = 1\n    if a:\n        b = 2", want: "class A:\n    def f(self):\n        a = 1\n        if a:\n            b = 2\n", matcher: "trimmed-lines"},
		{name: "trailing whitespace in file", content: "a = 1   \nb = 2\t\nc = 3\n", old: "a = 1\nb = 2", new: "a = 10\nb = 20", want: "a = 10\nb = 20\nc = 3\n", matcher: "trimmed-lines"},
		{name: "trailing newline kept once", content: "x\n  y\nz\n", old: "y\n", new: "Y\n", want: "x\n  Y\nz\n", matcher: "exact"},
		{name: "trimmed with trailing newline", content: "x\n\ty = 1\nz\n", old: "    y = 1\n", new: "    y = 2\n", want: "x\n\ty = 2\nz\n", matcher: "trimmed-lines"},
		// whitespace normalised
		{name: "collapsed spaces", content: "const   x    =     5;\n", old: "const x = 5;", new: "const x = 6;", want: "const x = 6;\n", matcher: "whitespace-normalized"},
		{name: "tabs inside line", content: "if\t(  condition\t) {\n", old: "if ( condition ) {", new: "if (c) {", want: "if (c) {\n", matcher: "whitespace-normalized"},
		{name: "inner span", content: "x = foo(  a,   b ) + 1\n", old: "foo( a, b )", new: "g()", want: "x = g() + 1\n", matcher: "whitespace-normalized"},
		{name: "multi-line collapsed", content: "a  =  1\nb  =  2\n", old: "a = 1\nb = 2", new: "a = 3\nb = 4", want: "a = 3\nb = 4\n", matcher: "whitespace-normalized"},
		// indentation flexible settles trimmed-lines ambiguity
		{name: "indentation decides", content: "if a {\n    x()\n  y()\n}\nif b {\n    x()\n    y()\n}\n", old: "x()\ny()", new: "z()", want: "if a {\n    x()\n  y()\n}\nif b {\n    z()\n}\n", matcher: "indentation-flexible"},
		// escape normalised
		{name: "over-escaped quotes", content: "msg := \"It's working\"\n", old: "msg := \\\"It's working\\\"", new: "msg := \\\"done\\\"", want: "msg := \"done\"\n", matcher: "escape-normalized"},
		{name: "over-escaped newline", content: "a := 1\nb := 2\n", old: "a := 1\\nb := 2", new: "a := 1\\nb := 3", want: "a := 1\nb := 3\n", matcher: "escape-normalized"},
		{name: "over-escaped backslashes", content: `p := "C:\Users\test"` + "\n", old: `p := "C:\\Users\\test"`, new: `p := "C:\\Users\\prod"`, want: `p := "C:\Users\prod"` + "\n", matcher: "escape-normalized"},
		{name: "over-escaped template", content: "s := `${name}`\n", old: "s := \\`\\${name}\\`", new: "s := \\`\\${other}\\`", want: "s := `${other}`\n", matcher: "escape-normalized"},
		// trimmed boundaries
		{name: "surrounding blank lines", content: "x\nvalue = 42\ny", old: "\n\n  value = 42  \n\n", new: "\n\n  value = 43  \n\n", want: "x\nvalue = 43\ny", matcher: "trimmed-boundaries"},
		// block anchors and context aware
		{name: "block anchors similar middle", content: "def f():\n    total = a + b\n    return total\n", old: "def f():\n    total = a+b\n    return total", new: "def f():\n    total = a - b\n    return total", want: "def f():\n    total = a - b\n    return total\n", matcher: "block-anchors"},
		{name: "context aware half the middle", content: "func run() {\n\tstart()\n\tstep(1)\n\tstop()\n}\n", old: "func run() {\n\tstart()\n\tcompletely different call here(xyz)\n\tstop()\n}", new: "func run() {\n\tstart()\n\tstop()\n}", want: "func run() {\n\tstart()\n\tstop()\n}\n", matcher: "context-aware"},
		// near misses that must be refused
		{name: "anchor block unrelated middle", content: "function configure() {\n  setA(1);\n  setB(2);\n  setC(3);\n  setD(4);\n}\n", old: "function configure() {\n  totally(unrelated, text);\n}", new: "function configure() {\n  x();\n}", errHas: "not found"},
		{name: "different function name", content: "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n", old: "func c() {\n\treturn 1\n}", new: "func c() {}", errHas: "not found"},
		{name: "weak brace anchors refused", content: "{\n  one();\n  two();\n}\n", old: "{\n  uno();\n  dos();\n}", new: "{}", errHas: "not found"},
		{name: "tolerant ambiguity", content: "  foo()\n  bar()\nx\n    foo()\n    bar()\n", old: "foo()\n bar()", new: "baz()", errHas: "found 2 similar places (starting at lines 1, 4)"},
		{name: "greedy return twice", content: "func a() {\n  }\n  return mainLayout\n}\nfunc b() {\n  }\n  return mainLayout\n}\n", old: "  }\n  return mainLayout", new: "}", errHas: "Found 2 matches"},
		{name: "invalid UTF-8 in old_string", content: "Hello", old: "o \xe4", new: "0", errHas: "not found"},
		{name: "escape guard counts unescaped", content: "a\nb\nc\nd\n", old: "a\\nb\\nc\\nd", new: "x", want: "x\n", matcher: "escape-normalized"},
	}
}

func TestApplyEditTable(t *testing.T) {
	for _, tc := range editCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := applyEdit(tc.content, editOp{Old: tc.old, New: tc.new, ReplaceAll: tc.all})
			if tc.errHas != "" || (tc.want == "" && tc.matcher == "") {
				if msg == "" {
					if tc.errHas == "" {
						return // outcome-agnostic case checked elsewhere
					}
					t.Fatalf("expected error containing %q, got success:\n%s", tc.errHas, got.text)
				}
				if !strings.Contains(msg, tc.errHas) {
					t.Fatalf("error %q does not contain %q", msg, tc.errHas)
				}
				return
			}
			if msg != "" {
				t.Fatalf("unexpected error: %s", msg)
			}
			if got.text != tc.want {
				t.Fatalf("text mismatch\n got: %q\nwant: %q", got.text, tc.want)
			}
			if got.matcher != tc.matcher {
				t.Fatalf("matcher = %q, want %q", got.matcher, tc.matcher)
			}
		})
	}
}

func TestNotFoundShowsClosestRegion(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("filler line number something\n")
	}
	b.WriteString("func computeTotal(items []Item) int {\n\tsum := 0\n\treturn sum\n}\n")
	_, msg := applyEdit(b.String(), editOp{Old: "func computeTotals(items []Items) int {\n\ttotal := 0", New: "x"})
	if !strings.Contains(msg, "lines 99-") || !strings.Contains(msg, "   101\tfunc computeTotal(items []Item) int {") {
		t.Fatalf("closest region not shown:\n%s", msg)
	}
}

func TestNotFoundHintsLineNumberPrefix(t *testing.T) {
	_, msg := applyEdit("alpha\nbeta\n", editOp{Old: "     1\talpha x\n     2\tbeta y", New: "x"})
	if !strings.Contains(msg, "line-number prefixes") {
		t.Fatalf("no hint about Read prefixes:\n%s", msg)
	}
}

func TestDisproportionGuard(t *testing.T) {
	if !disproportionate("a\nb\nc\nd\ne\nf", "a\nb\nc") {
		t.Fatal("6 lines for 3 should be refused")
	}
	if disproportionate("    a\n    b\n    c", "a\nb\nc") {
		t.Fatal("indentation alone must not trip the guard")
	}
}

// When old_string's lines disagree on how many spaces stand for the
// file's tab (one line says 1, another 3), re-indenting new_string must
// still come out the same on every call: it once followed map order.
func TestReindentIsDeterministic(t *testing.T) {
	first, _, err := PlanEdit("f.txt", "\tif x {\r\n\tturn 1\r\n\t}", " if x {\nurn 1\n   }", "  02", false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if got, _, _ := PlanEdit("f.txt", "\tif x {\r\n\tturn 1\r\n\t}", " if x {\nurn 1\n   }", "  02", false); got != first {
			t.Fatalf("call %d wrote %q, the first %q", i, got, first)
		}
	}
}
