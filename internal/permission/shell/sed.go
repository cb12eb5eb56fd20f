package shell

import "strings"

// checkSed allows sed only as a filter: no -i, no script files, and every
// script made of commands that print or edit the pattern space (p, d, q, =,
// l, n, N, P, D, g, G, h, H, x, and s/// without the e and w flags). GNU
// sed's e command and s///e run shell commands; w, W, r, R touch files.
func checkSed(c *Command, args []string) {
	var scripts []string
	haveScript := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if !haveScript && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				haveScript = true
			}
			i = len(args)
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				haveScript = true
				i++
			}
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			haveScript = true
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--quiet", "--silent", "--regexp-extended", "--posix", "--separate",
				"--unbuffered", "--null-data", "--zero-terminated", "--debug", "--sandbox":
			default:
				c.unsafe("sed " + a + " is not allowed (it may edit files or run code)")
				return
			}
		case strings.HasPrefix(a, "-") && a != "-":
			for _, f := range a[1:] {
				switch f {
				case 'n', 'E', 'r', 's', 'u', 'z':
				case 'e':
					// -ne 'script': the script is the next word.
					if i+1 < len(args) {
						scripts = append(scripts, args[i+1])
						haveScript = true
						i++
					}
				default:
					c.unsafe("sed -" + string(f) + " is not allowed (it may edit files or run code)")
					return
				}
			}
		default:
			if !haveScript {
				scripts = append(scripts, a)
				haveScript = true
			}
		}
	}
	for _, s := range scripts {
		if why := sedScriptUnsafe(s); why != "" {
			c.unsafe("sed script " + why)
			return
		}
	}
}

// sedScriptUnsafe parses a sed script just far enough to know each command.
func sedScriptUnsafe(s string) string {
	p := &sedParser{s: s}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return ""
		}
		if err := p.address(); err != "" {
			return err
		}
		p.skip(" \t")
		if p.peek() == ',' {
			p.i++
			if err := p.address(); err != "" {
				return err
			}
		}
		p.skip(" \t")
		if p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return "ends without a command"
		}
		cmd := p.s[p.i]
		p.i++
		switch cmd {
		case 'p', 'd', 'q', 'Q', '=', 'l', 'n', 'N', 'P', 'D', 'g', 'G', 'h', 'H', 'x', '{', '}':
			if cmd == 'q' || cmd == 'Q' || cmd == 'l' {
				p.skipDigits()
			}
		case 's':
			if err := p.substitute(); err != "" {
				return err
			}
		default:
			return "uses command `" + string(cmd) + "`, which is not allowed"
		}
		p.skip(" \t")
		if !p.eof() && !strings.ContainsRune(";\n}", rune(p.peek())) {
			return "has text after a command that was not understood"
		}
	}
}

type sedParser struct {
	s string
	i int
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }
func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}
func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}
func (p *sedParser) skipDigits() {
	for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
}

func (p *sedParser) address() string {
	switch ch := p.peek(); {
	case ch >= '0' && ch <= '9':
		p.skipDigits()
		if p.peek() == '~' {
			p.i++
			p.skipDigits()
		}
	case ch == '$':
		p.i++
	case ch == '+' || ch == '~':
		p.i++
		p.skipDigits()
	case ch == '/' || ch == '\\':
		if ch == '\\' {
			p.i++
			if p.eof() {
				return "has an unterminated address"
			}
		}
		delim := p.s[p.i]
		p.i++
		if !p.delimited(delim) {
			return "has an unterminated address"
		}
		p.skip("IM")
	}
	return ""
}

// delimited consumes up to and including the next unescaped delim.
func (p *sedParser) delimited(delim byte) bool {
	for !p.eof() {
		ch := p.s[p.i]
		p.i++
		if ch == '\\' {
			p.i++
			continue
		}
		if ch == delim {
			return true
		}
	}
	return false
}

func (p *sedParser) substitute() string {
	if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
		return "has a malformed s command"
	}
	delim := p.s[p.i]
	p.i++
	// The regexp and then the replacement each run to the next unescaped
	// delimiter: two steps, each consuming its part.
	if !p.delimited(delim) {
		return "has an unterminated s command"
	}
	if !p.delimited(delim) {
		return "has an unterminated s command"
	}
	for !p.eof() {
		ch := p.s[p.i]
		switch {
		case ch == 'g' || ch == 'p' || ch == 'i' || ch == 'I' || ch == 'm' || ch == 'M' || (ch >= '0' && ch <= '9'):
			p.i++
		case ch == 'e':
			return "uses the s///e flag, which runs the result as a command"
		case ch == 'w' || ch == 'W':
			return "uses the s///w flag, which writes a file"
		default:
			return ""
		}
	}
	return ""
}
