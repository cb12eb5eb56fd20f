package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

type toolState int

const (
	toolRunning toolState = iota
	toolDone
	toolFailed
	toolDenied
	toolInterrupted
)

// toolCard is one tool call as shown: what it does, the live tail of its
// output while it runs, then its result or diff. Sub-agent calls nest in
// children, keyed by the parent's tool_use_id.
type toolCard struct {
	id, name  string
	input     json.RawMessage
	state     toolState
	tail      []string // last lines of streamed output
	partial   string   // streamed output after the last newline
	output    string
	diff      string
	note      string // timeout, denial reason
	started   time.Time
	elapsed   time.Duration
	children  []*toolCard
	parent    *toolCard
	waiting   bool // a permission question about it is open
	shownSecs int  // the running time on screen, in seconds
}

const (
	tailLines    = 6
	resultLines  = 4
	diffLines    = 40
	detailsLines = 200
)

// addOutput keeps the last tailLines lines of a running command's output.
func (c *toolCard) addOutput(chunk string) {
	s := c.partial + chunk
	parts := strings.Split(s, "\n")
	c.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		c.tail = append(c.tail, strings.TrimRight(l, "\r"))
	}
	if len(c.tail) > tailLines {
		c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-tailLines:]...)
	}
}

// subject is the argument that says what the call does: the command, the
// file, the pattern, the URL.
func (c *toolCard) subject() string {
	var in map[string]any
	if json.Unmarshal(c.input, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description", "prompt"} {
		if v, ok := in[k].(string); ok && v != "" {
			if k == "pattern" {
				if p, ok := in["path"].(string); ok && p != "" {
					return v + " in " + p
				}
			}
			return sanitize(strings.ReplaceAll(v, "\n", " ⏎ "), false)
		}
	}
	return ""
}

func renderTool(c *toolCard, th *theme, width int, details bool, depth int) []string {
	indent := strings.Repeat("  ", depth)
	bullet := th.warn.Render("○ ")
	switch c.state {
	case toolDone:
		bullet = th.ok.Render("● ")
	case toolFailed, toolDenied:
		bullet = th.err.Render("● ")
	case toolInterrupted:
		bullet = th.dim.Render("● ")
	}
	head := indent + bullet + th.toolName.Render(c.name)
	if s := c.subject(); s != "" {
		head += th.faint.Render("(") + s + th.faint.Render(")")
	}
	if c.state == toolRunning && c.shownSecs >= 2 {
		head += th.dim.Render(fmt.Sprintf(" · %ds", c.shownSecs))
	}
	out := []string{head}
	for _, ch := range c.children {
		out = append(out, renderTool(ch, th, width, details, depth+1)...)
	}
	body := indent + "  "
	first := body + th.dim.Render("⎿ ")
	next := body + "  "
	add := func(lines []string, st interface{ Render(...string) string }) {
		out = append(out, prefixed(lines, first, next, st)...)
		first = next
	}
	w := width - len(next) - 2*depth
	switch c.state {
	case toolRunning:
		lines := append([]string{}, c.tail...)
		if c.partial != "" {
			lines = append(lines, c.partial)
		}
		if len(lines) == 0 {
			lines = []string{"running…"}
			if c.waiting {
				lines = []string{"waiting for your answer"}
			}
		}
		add(clipLines(lines, w), th.faint)
	case toolDenied:
		add(wrap(firstNonEmpty(c.note, "denied"), w), th.err)
	case toolInterrupted:
		add([]string{"interrupted"}, th.dim)
	default:
		if c.diff != "" {
			out = append(out, diffLinesOf(c.diff, th, w, details, first, next)...)
			break
		}
		st := th.faint
		if c.state == toolFailed {
			st = th.err
		}
		text := strings.TrimRight(c.output, "\n")
		if text == "" {
			text = "(no output)"
		}
		if c.note != "" {
			text = c.note + "\n" + text
		}
		limit := resultLines
		if details {
			limit = detailsLines
		}
		lines := splitLines(text)
		more := len(lines) - limit
		if more > 0 {
			lines = lines[:limit]
		}
		add(clipLines(lines, w), st)
		if more > 0 {
			out = append(out, next+th.dim.Render(fmt.Sprintf("… +%d lines (ctrl+o to show)", more)))
		}
	}
	return out
}

// diffLinesOf colours a unified diff: additions green, removals red, hunk
// headers cyan; long diffs are cut unless details are shown.
func diffLinesOf(diff string, th *theme, width int, details bool, first, next string) []string {
	var out []string
	lines := splitLines(strings.TrimRight(diff, "\n"))
	limit := diffLines
	if details {
		limit = detailsLines * 5
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		if len(out) >= limit {
			out = append(out, next+th.dim.Render(fmt.Sprintf("… +%d lines (ctrl+o to show)", len(lines)-i)))
			break
		}
		st := th.faint
		switch {
		case strings.HasPrefix(l, "+"):
			st = th.add
		case strings.HasPrefix(l, "-"):
			st = th.del
		case strings.HasPrefix(l, "@@"):
			st = th.hunk
		}
		p := next
		if len(out) == 0 {
			p = first
		}
		out = append(out, p+st.Render(clip(l, width)))
	}
	return out
}

func clipLines(lines []string, w int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = clip(l, w)
	}
	return out
}

// clip cuts one line of tool output to width (tool output is shown, not
// wrapped: a long log line takes one row).
func clip(s string, w int) string {
	s = strings.ReplaceAll(s, "\t", "    ")
	s = stripControl(s)
	if w < 4 {
		w = 4
	}
	r := []rune(s)
	if len(r) > w {
		return string(r[:w-1]) + "…"
	}
	return s
}

// stripControl drops escape sequences and control characters, line
// breaks included (one line of tool output).
func stripControl(s string) string { return sanitize(s, false) }

// sanitize drops terminal escape sequences and control characters from
// text that did not come from tandem: a command's output, the model's
// answer, a file it quotes. Passed through, they could move the cursor,
// recolour or retitle the terminal, or write the clipboard (OSC 52).
// keepLines keeps line breaks and tabs.
func sanitize(s string, keepLines bool) string {
	bad := func(r rune) bool {
		return (r < 0x20 && !(keepLines && (r == '\n' || r == '\t'))) || r == 0x7f || (r >= 0x80 && r < 0xa0)
	}
	if !strings.ContainsFunc(s, bad) && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "") // a stray C1 byte is no character either
	var b strings.Builder
	const (
		plain = iota
		esc   // after ESC
		csi   // ESC [ ... final byte
		str   // ESC ] / P / _ / ^ ... BEL or ESC \
	)
	state := plain
	for _, r := range s {
		switch state {
		case esc:
			switch r {
			case '[':
				state = csi
			case ']', 'P', '_', '^', 'X':
				state = str
			default:
				state = plain
			}
			continue
		case csi:
			if r >= 0x40 && r <= 0x7e {
				state = plain
			}
			continue
		case str:
			switch r {
			case 0x07, 0x9c:
				state = plain
			case 0x1b: // ESC \ ends it; the backslash goes with the ESC
				state = esc
			}
			continue
		}
		switch {
		case r == 0x1b:
			state = esc
		case r == 0x9b:
			state = csi
		case r == 0x9d:
			state = str
		case bad(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
