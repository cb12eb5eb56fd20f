package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// A command's or skill's text may carry Claude Code's two inline forms:
//
//   - !`cmd` (at the start of a line or after white space), or a fenced
//     block opened with ```! , runs cmd before the prompt is sent and puts
//     its output in its place;
//   - @path (at the start of a line or after white space; @"a b" for a path
//     with spaces) includes the file's contents, or a folder's listing,
//     after the text. The mention itself stays, as Claude Code keeps it.
//
// Both are found here; running and reading belong to the session (Inline),
// which judges each as the Bash or Read call it is.

// Inline is what ExpandInline needs from the session.
type Inline interface {
	// Shell runs one command as the Bash tool would and returns its output
	// as the model would read it. An error (the permission engine refused
	// the command, the session has no shell) is said in the command's place;
	// the command did not run.
	Shell(ctx context.Context, command string) (string, error)
	// File reads the file or folder a mention names. An error satisfying
	// errors.Is(err, fs.ErrNotExist) leaves the mention as plain text (it
	// may not have meant a file); any other error is said in the prompt.
	File(ctx context.Context, path string) (FileRef, error)
}

// FileRef is what one @path brought in.
type FileRef struct {
	// Path is the path as shown to the model (relative to the project).
	Path string
	// Content is the file's text, or a folder's entries one a line.
	Content string
	Dir     bool
	// Truncated says Content stops short of the whole file or folder.
	Truncated bool
}

// InlineNote is one ! command or @ mention that was not used, with why,
// for the status the front ends show.
type InlineNote struct {
	What string // "!`cmd`" or "@path"
	Why  string
}

func (n InlineNote) String() string { return n.What + ": " + n.Why }

// MaxMentions bounds the @ files one prompt includes; the rest are left as
// text (with a note).
const MaxMentions = 20

var (
	fencedShell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("```!\\s*\\n?([\\s\\S]*?)\\n?```") })
	inlineShell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)(?:^|\\s)(!`([^`]+)`)") })
	mentionRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)(?:^|\s)@(?:"([^"\n]+)"|([^\s"]+))`) })
)

// shellSpan is one ! form in the text: [start, end) is replaced.
type shellSpan struct {
	start, end int
	command    string
}

// shellSpans finds the ! forms, fenced blocks first; an inline form inside
// a fenced block is part of that block.
func shellSpans(text string) []shellSpan {
	var spans []shellSpan
	code := codeBlocks(text)
	for _, m := range fencedShell().FindAllStringSubmatchIndex(text, -1) {
		if within(code, m[0]) {
			continue // a ```! block shown inside an example
		}
		if cmd := strings.TrimSpace(text[m[2]:m[3]]); cmd != "" {
			spans = append(spans, shellSpan{start: m[0], end: m[1], command: cmd})
		}
	}
	fenced := len(spans)
	if strings.Contains(text, "!`") {
	next:
		for _, m := range inlineShell().FindAllStringSubmatchIndex(text, -1) {
			for _, f := range spans[:fenced] {
				if m[2] < f.end && m[3] > f.start {
					continue next
				}
			}
			if within(code, m[2]) {
				continue // an example in a code block, not a command
			}
			if cmd := strings.TrimSpace(text[m[4]:m[5]]); cmd != "" {
				spans = append(spans, shellSpan{start: m[2], end: m[3], command: cmd})
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	return spans
}

// codeBlocks are the [start, end) ranges of the fenced code blocks of
// text other than ```! blocks: what they hold is shown, not run or read.
// As in Markdown, a block closes at a line of at least as many backticks
// as opened it, and nothing else.
func codeBlocks(text string) [][2]int {
	var out [][2]int
	open, fence := -1, 0
	inShell := false // inside a ```! block, whose closing fence opens nothing
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos + 1
		}
		line := strings.TrimLeft(text[pos:end], " ")
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		closing := ticks >= 3 && strings.TrimSpace(line[ticks:]) == ""
		switch {
		case ticks < 3:
		case open >= 0:
			if closing && ticks >= fence {
				out = append(out, [2]int{open, end})
				open = -1
			}
		case inShell:
			inShell = !closing
		case strings.HasPrefix(line, "```!"):
			inShell = true
		default:
			open, fence = pos, ticks
		}
		pos = end
	}
	if open >= 0 {
		out = append(out, [2]int{open, len(text)})
	}
	return out
}

func within(ranges [][2]int, i int) bool {
	for _, r := range ranges {
		if i >= r[0] && i < r[1] {
			return true
		}
	}
	return false
}

// mention is one @ path in the text; at is the index of its '@'.
type mention struct {
	path string
	at   int
}

// mentions lists the @ paths of text outside the ! forms and code blocks,
// every occurrence, in order.
func mentions(text string, spans []shellSpan) []mention {
	if !strings.Contains(text, "@") {
		return nil
	}
	masked := []byte(text)
	for _, s := range spans {
		for i := s.start; i < s.end; i++ {
			masked[i] = ' '
		}
	}
	for _, r := range codeBlocks(text) {
		for i := r[0]; i < r[1]; i++ {
			masked[i] = ' '
		}
	}
	var out []mention
	for _, m := range mentionRe().FindAllStringSubmatchIndex(string(masked), -1) {
		var p string
		if m[2] >= 0 {
			p = text[m[2]:m[3]]
		} else {
			p = strings.TrimRight(text[m[4]:m[5]], ",;:!?)]}'.")
		}
		if p == "" {
			continue
		}
		at := m[4] - 1 // @path
		if m[2] >= 0 {
			at = m[2] - 2 // @"path"
		}
		out = append(out, mention{path: p, at: at})
	}
	return out
}

// ExpandInline runs the ! commands of text (in order, one at a time) and
// appends the files its @ mentions name. What was refused is said in the
// text, so the model knows, and returned as notes. A mention that was
// included or refused loses its '@' in the text: a runtime that reads
// mentions itself (the Claude Code CLI) must not read it again, past the
// checks made here.
func ExpandInline(ctx context.Context, text string, in Inline) (string, []InlineNote) {
	spans := shellSpans(text)
	refs := mentions(text, spans)
	if len(spans) == 0 && len(refs) == 0 {
		return text, nil
	}
	var notes []InlineNote
	outputs := make([]string, len(spans))
	for i, s := range spans {
		out, err := in.Shell(ctx, s.command)
		if err != nil {
			what := "!`" + s.command + "`"
			notes = append(notes, InlineNote{What: what, Why: err.Error()})
			outputs[i] = fmt.Sprintf("[%s was not run: %s]", what, err)
			continue
		}
		outputs[i] = strings.TrimSpace(out)
	}
	var files []string
	handled := map[string]bool{} // path -> its '@' goes
	seen := map[string]bool{}
	for _, m := range refs {
		p := m.path
		if seen[p] {
			continue
		}
		seen[p] = true
		if len(seen) > MaxMentions {
			notes = append(notes, InlineNote{What: "@" + p, Why: fmt.Sprintf("not included: a prompt includes at most %d files; name fewer", MaxMentions)})
			continue
		}
		ref, err := in.File(ctx, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			notes = append(notes, InlineNote{What: "@" + p, Why: "no such file in the project; left as text"})
		case err != nil:
			handled[p] = true
			notes = append(notes, InlineNote{What: "@" + p, Why: err.Error()})
			files = append(files, fmt.Sprintf("[@%s was not included: %s]", p, err))
		default:
			handled[p] = true
			files = append(files, formatRef(ref))
		}
	}
	drop := map[int]bool{}
	for _, m := range refs {
		if handled[m.path] {
			drop[m.at] = true
		}
	}
	var b strings.Builder
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if !drop[i] {
				b.WriteByte(text[i])
			}
		}
	}
	last := 0
	for i, s := range spans {
		write(last, s.start)
		b.WriteString(outputs[i])
		last = s.end
	}
	write(last, len(text))
	out := b.String()
	if len(files) > 0 {
		out = strings.TrimRight(out, "\n") + "\n\n" + strings.Join(files, "\n\n")
	}
	return out, notes
}

func formatRef(r FileRef) string {
	tag := "file"
	if r.Dir {
		tag = "directory"
	}
	body := strings.TrimRight(r.Content, "\n")
	if r.Truncated {
		body += "\n[… cut short: the rest was not included]"
	}
	return fmt.Sprintf("<%s path=%q>\n%s\n</%s>", tag, r.Path, body, tag)
}
