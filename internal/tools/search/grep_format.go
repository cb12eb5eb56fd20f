package search

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	// maxOutput caps Grep's text for the model, like Bash's output.
	maxOutput = 30000
	// maxLineLen cuts very long lines (minified code) in content mode.
	maxLineLen = 500
)

// format renders results the same way whichever engine found them.
func format(q query, results []fileResult) tool.Result {
	meta := map[string]any{"mode": q.mode, "num_files": len(results)}
	var lines []string
	var header, footer string
	switch q.mode {
	case modeFiles:
		if len(results) == 0 {
			return tool.Result{Content: "No files found", Meta: meta}
		}
		lines = filesByMtime(results)
		header = fmt.Sprintf("Found %d file%s", len(results), plural(len(results)))
	case modeCount:
		if len(results) == 0 {
			return tool.Result{Content: "No matches found", Meta: meta}
		}
		total := 0
		for _, r := range results {
			lines = append(lines, r.path+":"+strconv.Itoa(r.count))
			total += r.count
		}
		meta["num_matches"] = total
		footer = fmt.Sprintf("Found %d total matching line%s across %d file%s.", total, plural(total), len(results), plural(len(results)))
	default:
		lines = contentLines(q, results)
		if len(lines) == 0 {
			return tool.Result{Content: "No matches found", Meta: meta}
		}
	}
	page, note := paginate(lines, q.offset, q.headLimit)
	body, cut := capText(page)
	var parts []string
	if header != "" {
		parts = append(parts, header)
	}
	parts = append(parts, body)
	if footer != "" {
		parts = append(parts, "\n"+footer)
	}
	if note != "" {
		parts = append(parts, note)
	}
	if cut {
		meta["truncated"] = true
		parts = append(parts, fmt.Sprintf("[Output truncated at %d characters. Narrow the search with path, glob or type, or page with head_limit and offset.]", maxOutput))
	}
	return tool.Result{Content: strings.Join(parts, "\n"), Meta: meta}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// filesByMtime lists paths most recently modified first, as Claude Code
// does (recent files are likelier to matter); ties go by path.
func filesByMtime(results []fileResult) []string {
	hits := make([]fileHit, len(results))
	for i, r := range results {
		hits[i].path = r.path
		if fi, err := os.Stat(r.path); err == nil {
			hits[i].mtime = fi.ModTime()
		} else {
			hits[i].mtime = time.Time{}
		}
	}
	sortNewestFirst(hits)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.path
	}
	return out
}

// contentLines renders ripgrep's classic format: path:line:text for
// matches, path-line-text for context, "--" between separate groups.
func contentLines(q query, results []fileResult) []string {
	var out []string
	for _, r := range results {
		prev := -1
		for _, l := range r.lines {
			if prev >= 0 && l.num != prev+1 && (q.before > 0 || q.after > 0) {
				out = append(out, "--")
			} else if prev < 0 && len(out) > 0 && (q.before > 0 || q.after > 0) {
				out = append(out, "--")
			}
			sep := "-"
			if l.match {
				sep = ":"
			}
			var sb strings.Builder
			sb.WriteString(r.path)
			sb.WriteString(sep)
			if q.lineNumbers {
				sb.WriteString(strconv.Itoa(l.num))
				sb.WriteString(sep)
			}
			sb.WriteString(cutLine(strings.TrimSuffix(l.text, "\r")))
			out = append(out, sb.String())
			prev = l.num
		}
	}
	return out
}

func cutLine(s string) string {
	if len(s) <= maxLineLen {
		return s
	}
	cut := maxLineLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" [... %d more characters]", len(s)-cut)
}

func paginate(lines []string, offset, limit int) ([]string, string) {
	total := len(lines)
	if offset == 0 && (limit == 0 || limit >= total) {
		return lines, ""
	}
	from := min(offset, total)
	to := total
	if limit > 0 {
		to = min(from+limit, total)
	}
	note := fmt.Sprintf("[Showing results %d-%d of %d (offset: %d, head_limit: %d)]", from+1, to, total, offset, limit)
	if from >= total {
		note = fmt.Sprintf("[offset %d is past the end: there are %d results]", offset, total)
	}
	return lines[from:to], note
}

// capText joins lines, stopping before maxOutput characters.
func capText(lines []string) (string, bool) {
	var sb strings.Builder
	for i, l := range lines {
		if sb.Len()+len(l)+1 > maxOutput {
			return strings.TrimRight(sb.String(), "\n"), i < len(lines)
		}
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	return strings.TrimRight(sb.String(), "\n"), false
}
