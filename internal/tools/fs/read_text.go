package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

// isBinary reports whether head looks like something other than text: a
// NUL byte, or many bytes that are neither valid UTF-8 nor printable.
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad, total := 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		// A rune cut at the end of the sample is not evidence of binary.
		if r == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax {
			bad++
		} else if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v' && r != 0x1b {
			bad++
		}
		total++
		i += size
	}
	return total > 0 && bad*10 > total
}

func readText(ctx context.Context, env *tool.Env, req readRequest, info os.FileInfo) (tool.Result, error) {
	if !req.ranged && info.Size() > maxWholeRead {
		return tool.ErrorResult(fmt.Sprintf("File %s is %s, too large to read at once (the limit without offset/limit is %s). Read it in parts with offset and limit (e.g. offset=1, limit=500), or use the Grep tool to find the part you need.",
			req.abs, humanSize(info.Size()), humanSize(maxWholeRead))), nil
	}
	tracker := TrackerFrom(env)
	var src lineSource
	totalLines := -1
	if info.Size() <= maxInMemory {
		// Through the session's Files: an editor's unsaved buffer is what
		// the user sees, so it is what the model reads.
		content, err := env.FileSystem().ReadFile(ctx, req.real)
		if err != nil {
			return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
		}
		tracker.RecordContent(req.real, info, content)
		src = memoryLines(content)
		totalLines = countLines(content)
	} else {
		f, _, err := regular.Open(req.real)
		if err != nil {
			return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
		}
		defer f.Close()
		tracker.Record(req.real, FileState{ModTime: info.ModTime(), Size: info.Size()})
		src = streamLines(f)
	}
	limit := req.limit
	if limit == 0 {
		limit = defaultReadLines
	}
	out := formatLines(src, req.offset, limit)
	if out.shown == 0 {
		if totalLines < 0 {
			totalLines = out.seen
		}
		return tool.ErrorResult(fmt.Sprintf("File %s has %d lines; offset %d is past the end. Use an offset between 1 and %d.", req.abs, totalLines, req.offset, max(totalLines, 1))), nil
	}
	text := out.text.String()
	last := req.offset + out.shown - 1
	switch {
	case out.capped:
		text += fmt.Sprintf("\n\n(Output stopped after line %d because it reached %s. Call Read with offset=%d to continue.)", last, humanSize(maxReadOutput), last+1)
	case out.more && totalLines >= 0:
		text += fmt.Sprintf("\n\n(Showing lines %d-%d of %d. Call Read with offset=%d to continue.)", req.offset, last, totalLines, last+1)
	case out.more:
		text += fmt.Sprintf("\n\n(Showing lines %d-%d; the file goes on. Call Read with offset=%d to continue.)", req.offset, last, last+1)
	}
	meta := map[string]any{"file_path": req.abs, "start_line": req.offset, "lines": out.shown,
		"truncated": out.more || out.capped, "long_lines_cut": out.cutLines}
	if totalLines >= 0 {
		meta["total_lines"] = totalLines
	}
	return tool.Result{Content: text, Meta: meta}, nil
}

// lineSource yields the file's lines (without the newline) until yield
// returns false or an error ends the file.
type lineSource func(yield func(line []byte, cut bool) bool)

func memoryLines(content []byte) lineSource {
	return func(yield func([]byte, bool) bool) {
		for len(content) > 0 {
			i := bytes.IndexByte(content, '\n')
			var line []byte
			if i < 0 {
				line, content = content, nil
			} else {
				line, content = content[:i], content[i+1:]
			}
			if !yield(line, false) {
				return
			}
		}
	}
}

// streamLines reads a large file without ever holding more than the first
// few kilobytes of a line: a multi-gigabyte single-line file stays cheap.
func streamLines(r io.Reader) lineSource {
	const keep = maxLineChars * utf8.UTFMax
	return func(yield func([]byte, bool) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		var line []byte
		cut := false
		for {
			chunk, err := br.ReadSlice('\n')
			data := bytes.TrimSuffix(chunk, []byte("\n"))
			take := min(len(data), max(keep-len(line), 0))
			line = append(line, data[:take]...)
			cut = cut || take < len(data)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if len(chunk) > 0 || len(line) > 0 {
				if !yield(line, cut) {
					return
				}
			}
			if err != nil {
				return
			}
			line, cut = line[:0], false
		}
	}
}

type formatted struct {
	text     strings.Builder
	shown    int // lines written
	seen     int // lines passed, written or not
	more     bool
	capped   bool
	cutLines int
}

// formatLines renders lines offset..offset+limit-1 as cat -n does.
func formatLines(src lineSource, offset, limit int) *formatted {
	out := &formatted{}
	src(func(line []byte, cut bool) bool {
		out.seen++
		if out.seen < offset {
			return true
		}
		if out.shown >= limit || out.text.Len() >= maxReadOutput {
			out.more = out.shown >= limit
			out.capped = !out.more
			return false
		}
		s := strings.TrimSuffix(string(line), "\r")
		if utf8.RuneCountInString(s) > maxLineChars {
			s, cut = truncateRunes(s, maxLineChars), true
		}
		s = strings.ToValidUTF8(s, "\uFFFD")
		if cut {
			s += fmt.Sprintf("... [line truncated at %d characters]", maxLineChars)
			out.cutLines++
		}
		if out.shown > 0 {
			out.text.WriteByte('\n')
		}
		fmt.Fprintf(&out.text, "%6d\t%s", out.seen, s)
		out.shown++
		return true
	})
	return out
}

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// missingFileMessage says the file is not there and offers names in the same
// folder that look like what the model meant (wrong case, extension, typo).
func missingFileMessage(abs, workDir string) string {
	msg := fmt.Sprintf("File does not exist: %s.", abs)
	dir, base := filepath.Split(abs)
	entries, err := os.ReadDir(dir)
	if err != nil {
		msg += fmt.Sprintf(" Its folder %s does not exist either.", filepath.Clean(dir))
	} else if s := similarNames(base, entries); len(s) > 0 {
		for i := range s {
			s[i] = filepath.Join(dir, s[i])
		}
		msg += " Did you mean: " + strings.Join(s, ", ") + "?"
	}
	if workDir != "" {
		msg += " The working folder is " + workDir + "."
	}
	return msg
}

func similarNames(base string, entries []os.DirEntry) []string {
	type cand struct {
		name string
		dist int
	}
	lower := strings.ToLower(base)
	stem := strings.TrimSuffix(lower, filepath.Ext(lower))
	var cs []cand
	for _, e := range entries {
		name := e.Name()
		ln := strings.ToLower(name)
		d := levenshtein(lower, ln)
		switch {
		case ln == lower:
			d = 0
		case stem != "" && strings.TrimSuffix(ln, filepath.Ext(ln)) == stem:
			d = 1
		case d > max(2, len(lower)/4):
			continue
		}
		cs = append(cs, cand{name, d})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 5; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
