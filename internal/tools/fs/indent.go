package fs

import (
	"sort"
	"strings"
)

func leadingWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// dedent removes the indentation common to the non-blank lines; blank lines
// become empty.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if !isBlank(l) && (common < 0 || len(leadingWS(l)) < common) {
			common = len(leadingWS(l))
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if !isBlank(l) {
			out[i] = l[common:]
		}
	}
	return out
}

// reindent adapts new_string to the indentation the file really has where
// old_string matched. It learns, line by line, which indentation of
// old_string stands for which indentation of the file (so "4 spaces" can
// mean "one tab") and rewrites new_string's indentation the same way.
// It reports whether anything changed.
func reindent(newStr string, oldLines, fileLines []string) (string, bool) {
	mapping := map[string]string{}
	identity := true
	for i := 0; i < min(len(oldLines), len(fileLines)); i++ {
		if isBlank(oldLines[i]) || isBlank(fileLines[i]) {
			continue
		}
		o, f := leadingWS(oldLines[i]), leadingWS(fileLines[i])
		if _, seen := mapping[o]; seen {
			continue
		}
		mapping[o] = f
		identity = identity && o == f
	}
	if identity || len(mapping) == 0 {
		return newStr, false
	}
	keys := make([]string, 0, len(mapping))
	for k := range mapping {
		keys = append(keys, k)
	}
	// Longest first, so the most specific prefix maps a line; then by
	// text, so the same edit is rewritten the same way every time.
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	unit := indentUnit(mapping, keys)
	lines := strings.Split(newStr, "\n")
	for i, l := range lines {
		if isBlank(l) {
			continue
		}
		ws := leadingWS(l)
		for _, k := range keys {
			if strings.HasPrefix(ws, k) {
				lines[i] = mapping[k] + unit.convert(ws[len(k):]) + l[len(ws):]
				break
			}
		}
	}
	out := strings.Join(lines, "\n")
	return out, out != newStr
}

// indentConv converts extra indentation (beyond a mapped prefix) between
// spaces and tabs when old_string and the file disagree on which to use.
type indentConv struct {
	toTabs, toSpaces bool
	width            int
}

// indentUnit reads the conversion from mapping, visiting its keys in the
// order given: when the lines disagree on how many spaces make a tab, the
// first (longest) indentation that says decides, never the map's order.
func indentUnit(mapping map[string]string, keys []string) indentConv {
	var c indentConv
	for _, o := range keys {
		f := mapping[o]
		width := 0
		switch {
		case strings.Contains(f, "\t") && !strings.Contains(o, "\t") && len(o) > 0:
			c.toTabs = true
			if t := strings.Count(f, "\t"); t > 0 && len(o)%t == 0 {
				width = len(o) / t
			}
		case strings.Contains(o, "\t") && !strings.Contains(f, "\t") && len(f) > 0:
			c.toSpaces = true
			if t := strings.Count(o, "\t"); t > 0 && len(f)%t == 0 {
				width = len(f) / t
			}
		}
		if c.width == 0 {
			c.width = width
		}
	}
	if c.width <= 0 {
		c.width = 4
	}
	return c
}

func (c indentConv) convert(ws string) string {
	switch {
	case c.toTabs:
		return strings.ReplaceAll(ws, strings.Repeat(" ", c.width), "\t")
	case c.toSpaces:
		return strings.ReplaceAll(ws, "\t", strings.Repeat(" ", c.width))
	}
	return ws
}
