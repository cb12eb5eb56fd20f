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
	for _, m := range fencedShell().FindAllStringSubmatchIndex(text, -1) {
		if cmd := strings.TrimSpace(text[m[2]:m[3]]); cmd != "" {
			spans = append(spans, shellSpan{start: m[0], end: m[1], command: cmd})
		}
	}
	fenced := len(spans)
	if strings.Contains(text, "!`") {
		code := codeBlocks(text)
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
func codeBlocks(text string) [][2]int {
	var out [][2]int
	open := -1
	inShell := false // inside a ```! block, whose closing fence opens nothing
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos + 1
		}
		line := strings.TrimLeft(text[pos:end], " ")
		if strings.HasPrefix(line, "```") {
			switch {
			case open >= 0:
				out = append(out, [2]int{open, end})
				open = -1
			case inShell:
				inShell = false
			case strings.HasPrefix(line, "```!"):
				inShell = true
			default:
				open = pos
			}
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

// HasInline reports whether text holds a ! command or an @ mention.
func HasInline(text string) bool {
	return len(shellSpans(text)) > 0 || len(mentions(text, nil)) > 0
}

// mentions lists the @ paths of text outside the ! forms, each once, in
// order.
func mentions(text string, spans []shellSpan) []string {
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
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRe().FindAllStringSubmatch(string(masked), -1) {
		p := m[1]
		if p == "" {
			p = strings.TrimRight(m[2], ",;:!?)]}'.")
		}
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// ExpandInline runs the ! commands of text (in order, one at a time) and
// appends the files its @ mentions name. What was refused is said in the
// text, so the model knows, and returned as notes.
func ExpandInline(ctx context.Context, text string, in Inline) (string, []InlineNote) {
	spans := shellSpans(text)
	paths := mentions(text, spans)
	if len(spans) == 0 && len(paths) == 0 {
		return text, nil
	}
	var notes []InlineNote
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		last = s.end
		out, err := in.Shell(ctx, s.command)
		if err != nil {
			what := "!`" + s.command + "`"
			notes = append(notes, InlineNote{What: what, Why: err.Error()})
			fmt.Fprintf(&b, "[%s was not run: %s]", what, err)
			continue
		}
		b.WriteString(strings.TrimSpace(out))
	}
	b.WriteString(text[last:])
	var files []string
	for i, p := range paths {
		if i >= MaxMentions {
			notes = append(notes, InlineNote{What: "@" + p, Why: fmt.Sprintf("not included: a prompt includes at most %d files; name fewer", MaxMentions)})
			continue
		}
		ref, err := in.File(ctx, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			notes = append(notes, InlineNote{What: "@" + p, Why: "no such file in the project; left as text"})
		case err != nil:
			notes = append(notes, InlineNote{What: "@" + p, Why: err.Error()})
			files = append(files, fmt.Sprintf("[@%s was not included: %s]", p, err))
		default:
			files = append(files, formatRef(ref))
		}
	}
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
