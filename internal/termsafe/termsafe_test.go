package termsafe

import (
	"bytes"
	"testing"
)

func TestEscapes(t *testing.T) {
	cases := []struct{ in, text, line string }{
		{"plain text", "plain text", "plain text"},
		{"two\nlines\tand tab", "two\nlines\tand tab", `two\nlines\tand tab`},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`, `\x1b]0;pwned\x07title`},
		{"rm -rf ~\r\x1b[2Kls", `rm -rf ~\r\x1b[2Kls`, `rm -rf ~\r\x1b[2Kls`},
		{"csi \u009b31m", `csi \u009b31m`, `csi \u009b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`, `bidi \u202eevil`},
		{"bad \xff utf8 ünïcode", `bad \xff utf8 ünïcode`, `bad \xff utf8 ünïcode`},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"ünï\x1b[31m", `ünï\x1b[31m`, `ünï\x1b[31m`},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

func TestForNonTerminalKeepsBytes(t *testing.T) {
	var b bytes.Buffer
	if got := For(&b)("\x1b[31m"); got != "\x1b[31m" {
		t.Errorf("non-terminal output changed: %q", got)
	}
}
