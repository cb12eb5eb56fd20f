package tui

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// markdown renders assistant text for the terminal. It is a small line
// parser for what answers use (headings, paragraphs, lists, code fences,
// quotes, tables, rules; bold, italic, code, links) rather than a library:
// glamour links a syntax highlighter whose package init costs tens of
// milliseconds and megabytes at every start of the binary, and even
// goldmark's init (entity tables) is paid by `tandem --version`. A line
// parser also copes with half-written Markdown while an answer streams.
type markdown struct {
	th                                 *theme
	headingRE, listRE, ruleRE, fenceRE *regexp.Regexp
}

// newMarkdown compiles its patterns when the UI opens, not at package
// init (which every run of the binary pays).
func newMarkdown(th *theme) *markdown {
	return &markdown{th: th,
		headingRE: regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`),
		listRE:    regexp.MustCompile(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`),
		ruleRE:    regexp.MustCompile(`^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`),
		fenceRE:   regexp.MustCompile("^\\s{0,3}(```+|~~~+)\\s*([^`\\s]*)"),
	}
}

func (md *markdown) render(src string, width int) string {
	width = max(width, 10)
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	return strings.Join(md.blocks(lines, width), "\n")
}

// blocks renders lines as a sequence of blocks with a blank line between
// them (list items stay together).
func (md *markdown) blocks(lines []string, width int) []string {
	th := md.th
	var out []string
	sep := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			i++
		case md.fenceRE.MatchString(line):
			sep()
			var code []string
			code, i = md.fence(lines, i, width)
			out = append(out, code...)
		case md.headingRE.MatchString(line):
			m := md.headingRE.FindStringSubmatch(line)
			st := th.bold
			if len(m[1]) <= 2 {
				st = th.accent.Bold(true)
			}
			sep()
			out = append(out, prefixed(wrap(md.inline(m[2]), width), "", "", st)...)
			i++
		case md.ruleRE.MatchString(line):
			sep()
			out = append(out, th.dim.Render(strings.Repeat("─", min(width, 40))))
			i++
		case strings.HasPrefix(trim, ">"):
			var quote []string
			quote, i = run(lines, i, ">")
			for j, q := range quote {
				quote[j] = strings.TrimPrefix(strings.TrimPrefix(q, ">"), " ")
			}
			sep()
			out = append(out, prefixed(md.blocks(quote, width-2), th.dim.Render("│ "), th.dim.Render("│ "), th.faint)...)
		case strings.HasPrefix(trim, "|"):
			var rows []string
			rows, i = run(lines, i, "|")
			sep()
			out = append(out, md.table(rows, width)...)
		case md.listRE.MatchString(line):
			if len(out) > 0 && !md.isItem(lines, i-1) {
				sep()
			}
			var item []string
			item, i = md.listItem(lines, i, width)
			out = append(out, item...)
		default:
			var para []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && (len(para) == 0 || !md.startsBlock(lines[i])); i++ {
				para = append(para, strings.TrimSpace(lines[i]))
			}
			sep()
			out = append(out, wrap(md.inline(strings.Join(para, " ")), width)...)
		}
	}
	return out
}

// fence renders the code block opening at lines[i] (to its closing fence,
// or the end while an answer is still streaming it).
func (md *markdown) fence(lines []string, i, width int) ([]string, int) {
	th := md.th
	m := md.fenceRE.FindStringSubmatch(lines[i])
	var out []string
	if m[2] != "" {
		out = append(out, th.dim.Render(m[2]))
	}
	for i++; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), m[1]) {
			return out, i + 1
		}
		out = append(out, th.dim.Render("│ ")+th.code.Render(clip(lines[i], width-2)))
	}
	return out, i
}

// run collects the trimmed lines from i on that start with prefix.
func run(lines []string, i int, prefix string) ([]string, int) {
	var out []string
	for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), prefix); i++ {
		out = append(out, strings.TrimSpace(lines[i]))
	}
	return out, i
}

func (md *markdown) isItem(lines []string, i int) bool {
	for ; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return md.listRE.MatchString(lines[i]) || strings.HasPrefix(lines[i], " ")
		}
	}
	return false
}

func (md *markdown) startsBlock(l string) bool {
	t := strings.TrimSpace(l)
	return md.fenceRE.MatchString(l) || md.headingRE.MatchString(l) || md.ruleRE.MatchString(l) || md.listRE.MatchString(l) ||
		strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|")
}

// listItem renders one item (its marker, text and continuation lines),
// indented by its nesting depth.
func (md *markdown) listItem(lines []string, i, width int) ([]string, int) {
	m := md.listRE.FindStringSubmatch(lines[i])
	depth := len(strings.ReplaceAll(m[1], "\t", "    ")) / 2
	marker := "• "
	if m[2] != "-" && m[2] != "*" && m[2] != "+" {
		marker = m[2] + " "
	}
	text := []string{m[3]}
	for i++; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || md.listRE.MatchString(l) || md.startsBlock(l) {
			break
		}
		text = append(text, strings.TrimSpace(l))
	}
	indent := strings.Repeat("  ", min(depth, 6))
	pad := strings.Repeat(" ", utf8.RuneCountInString(marker))
	body := wrap(md.inline(strings.Join(text, " ")), width-len(indent)-len(pad))
	return prefixedRaw(body, indent+md.th.accent.Render(marker), indent+pad), i
}

// table aligns a pipe table's columns; one too wide for the screen keeps
// its source lines.
func (md *markdown) table(rows []string, width int) []string {
	var cells [][]string
	var widths []int
	for _, r := range rows {
		r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
		parts := strings.Split(r, "|")
		isSep := true
		for j := range parts {
			parts[j] = strings.TrimSpace(parts[j])
			if strings.Trim(parts[j], ":-") != "" {
				isSep = false
			}
		}
		if isSep {
			cells = append(cells, nil) // the header rule
			continue
		}
		for j, p := range parts {
			p = md.inline(p)
			parts[j] = p
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], visibleWidth(p))
		}
		cells = append(cells, parts)
	}
	total := 0
	for _, w := range widths {
		total += w + 3
	}
	if total > width {
		return clipLines(rows, width)
	}
	var out []string
	for _, row := range cells {
		if row == nil {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			out = append(out, md.th.dim.Render(strings.Join(rule, "─┼─")))
			continue
		}
		var b strings.Builder
		for j, w := range widths {
			c := ""
			if j < len(row) {
				c = row[j]
			}
			if j > 0 {
				b.WriteString(md.th.dim.Render(" │ "))
			}
			b.WriteString(c + strings.Repeat(" ", w-visibleWidth(c)))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// inline styles code spans, bold, italic, strike-through and links.
func (md *markdown) inline(s string) string {
	th := md.th
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]()#+-.!~|<>", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := runLen(s, i, '`')
			if end := strings.Index(s[i+n:], s[i:i+n]); end >= 0 {
				code := strings.TrimSpace(s[i+n : i+n+end])
				if th.plain {
					code = "`" + code + "`"
				}
				b.WriteString(th.code.Render(code))
				i += n + end + n
				continue
			}
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c:
			if end := strings.Index(s[i+2:], s[i:i+2]); end > 0 {
				b.WriteString(th.bold.Render(md.inline(s[i+2 : i+2+end])))
				i += end + 4
				continue
			}
		case c == '*' || c == '_' && (i == 0 || !isWordByte(s[i-1])):
			if end := strings.IndexByte(s[i+1:], c); end > 0 && s[i+1] != ' ' && (c == '*' || i+2+end >= len(s) || !isWordByte(s[i+2+end])) {
				b.WriteString(th.italic.Render(md.inline(s[i+1 : i+1+end])))
				i += end + 2
				continue
			}
		case c == '~' && strings.HasPrefix(s[i:], "~~"):
			if end := strings.Index(s[i+2:], "~~"); end > 0 {
				b.WriteString(th.faint.Strikethrough(true).Render(s[i+2 : i+2+end]))
				i += end + 4
				continue
			}
		case c == '[':
			if label, dest, n, ok := link(s[i:]); ok {
				b.WriteString(th.link.Render(md.inline(label)))
				if dest != label {
					b.WriteString(th.dim.Render(" (" + dest + ")"))
				}
				i += n
				continue
			}
		case c == '<' && (strings.HasPrefix(s[i:], "<http://") || strings.HasPrefix(s[i:], "<https://")):
			if end := strings.IndexByte(s[i:], '>'); end > 0 {
				b.WriteString(th.link.Render(s[i+1 : i+end]))
				i += end + 1
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// link parses "[label](dest)" at the start of s.
func link(s string) (label, dest string, n int, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 || strings.Contains(s[1:close], "\n") {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", 0, false
	}
	return s[1:close], s[close+2 : close+2+end], close + 3 + end, true
}
