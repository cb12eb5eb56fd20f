package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/attach"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// What Claude Code users reach for every day, each an optional Backend
// interface (a backend without one gets a notice naming what is missing):
// `!cmd` shell passthrough, `@image.png` attachments, /memory and `#`
// lines, the statusLine command, and notifications when a turn ends or a
// question waits while the terminal is out of focus.

// ShellRunner runs a `!cmd` line through the session's permission engine
// and Bash tool (its sandbox).
type ShellRunner interface {
	UserShell(ctx context.Context, command string) (string, error)
}

// ImageRunner runs a turn whose prompt carries images.
type ImageRunner interface {
	RunImages(ctx context.Context, prompt string, images []message.Block) (event.Event, error)
}

// MemoryFile is an instruction file /memory opens and # appends to.
type MemoryFile struct{ Scope, Path string }

// Memory lists the session's memory files and appends a line to one.
type Memory interface {
	MemoryFiles() []MemoryFile
	AppendMemory(path, line string) error
}

// StatusLiner runs the statusLine command of the user's (or a trusted
// folder's) Claude Code settings; HasStatusLine false: none is set.
type StatusLiner interface {
	HasStatusLine() bool
	StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error)
}

// extras is the UI state of these features.
type extras struct {
	// shellContext are `!` commands and their output since the last
	// prompt; the next prompt carries them, so the model sees them.
	shellContext []string
	// memLine is a # line waiting for the user to pick its file.
	memLine string
	// status is the statusLine command's first line (or its error).
	status        string
	statusRunning bool
	// blurred: the terminal reported focus lost (and not regained).
	blurred bool
	// clipDir holds the images pasted from the clipboard (clipimage.go),
	// clipN the last one's number.
	clipDir string
	clipN   int
}

type (
	shellDoneMsg struct {
		command, out string
		err          error
	}
	statusLineMsg struct {
		text string
		err  error
	}
	editorDoneMsg struct {
		path string
		err  error
	}
)

// extraSubmit takes the prompts these features own: `!cmd`, `#line`, and
// a prompt naming images (checked before it is sent).
func (m *model) extraSubmit(text string) (tea.Cmd, bool) {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "!"):
		return m.shell(strings.TrimSpace(t[1:])), true
	case strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#!"):
		return m.rememberLine(strings.TrimSpace(strings.TrimLeft(t, "#"))), true
	}
	if paths := m.imagePaths(text); len(paths) > 0 {
		if m.be.Features().Images == nil {
			m.tr.notice(levelError, "this session cannot take images")
			return nil, true
		}
		for _, p := range paths {
			if _, err := attach.File(p); err != nil {
				m.tr.notice(levelError, err.Error())
				m.in.set(text)
				return nil, true
			}
		}
	}
	return nil, false
}

// imagePaths are the images the prompt names with @path (relative to the
// session's folder), existing files with an image's name only.
func (m *model) imagePaths(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		p, ok := strings.CutPrefix(f, "@")
		if !ok || !attach.LooksLikeImage(p) {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(m.info.Cwd, p)
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// pastedImage turns a pasted path of an existing image (what a terminal
// types when a file is dropped on it, maybe quoted or with escaped
// spaces) into an @mention the prompt attaches.
func (m *model) pastedImage(s string) string {
	p := strings.TrimSpace(s)
	if strings.ContainsAny(p, "\n") || !attach.LooksLikeImage(strings.Trim(p, `'"`)) {
		return s
	}
	p = strings.ReplaceAll(strings.Trim(p, `'"`), `\ `, " ")
	p = strings.TrimPrefix(p, "file://")
	if strings.Contains(p, " ") {
		return s // an @mention ends at a space
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(m.info.Cwd, p)
	}
	if info, err := os.Stat(abs); err != nil || !info.Mode().IsRegular() {
		return s
	}
	return "@" + p + " "
}

// prepareRun returns what runs the prompt's turn: with the pending `!`
// outputs before it and its images attached.
func (m *model) prepareRun(text string) func(ctx context.Context) (event.Event, error) {
	prompt := text
	if len(m.x.shellContext) > 0 {
		prompt = strings.Join(m.x.shellContext, "\n") + "\n\n" + text
		m.x.shellContext = nil
	}
	paths := m.imagePaths(text)
	ir := m.be.Features().Images
	return func(ctx context.Context) (event.Event, error) {
		if len(paths) == 0 || ir == nil {
			return m.be.Run(ctx, prompt)
		}
		var images []message.Block
		for _, p := range paths {
			b, err := attach.File(p)
			if err != nil {
				return event.Event{}, err
			}
			images = append(images, b)
		}
		return ir.RunImages(ctx, prompt, images)
	}
}

// shell runs a `!` command (not while a turn runs: its output belongs
// between turns).
func (m *model) shell(command string) tea.Cmd {
	sr := m.be.Features().Shell
	switch {
	case command == "":
		m.tr.notice(levelWarn, "type a command after !, e.g. !git status")
		return nil
	case sr == nil:
		m.tr.notice(levelError, "this session cannot run shell commands")
		return nil
	case m.busy:
		m.tr.notice(levelWarn, "a turn is running: run !"+command+" when it ends (esc stops it)")
		m.in.set("!" + command)
		return nil
	}
	m.tr.add(&item{kind: kindUser, text: sanitize("! "+command, true)})
	m.tr.offset = 0
	return func() tea.Msg {
		out, err := sr.UserShell(m.ctx, command)
		return shellDoneMsg{command: command, out: out, err: err}
	}
}

func (m *model) shellDone(msg shellDoneMsg) {
	out := strings.TrimRight(msg.out, "\n")
	if msg.err != nil {
		m.tr.notice(levelError, "!"+msg.command+": "+msg.err.Error())
		out = "error: " + msg.err.Error()
	} else {
		shown := out
		if shown == "" {
			shown = "(no output)"
		}
		m.tr.notice(levelInfo, sanitize(shown, true))
	}
	// Claude Code's bash mode wording, so the model reads it the same way.
	m.x.shellContext = append(m.x.shellContext, fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>", msg.command, out))
}

// rememberLine asks which memory file a # line goes to.
func (m *model) rememberLine(line string) tea.Cmd {
	mem := m.be.Features().Memory
	if mem == nil {
		m.tr.notice(levelError, "this session has no memory files")
		return nil
	}
	if line == "" {
		m.tr.notice(levelWarn, "type what to remember after #, e.g. # run tests with make test")
		return nil
	}
	m.x.memLine = line
	var opts []string
	for _, f := range mem.MemoryFiles() {
		opts = append(opts, fmt.Sprintf("%s: %s (%s)", f.Scope[:1], f.Scope, f.Path))
	}
	m.tr.notice(levelInfo, "Remember “"+sanitize(line, false)+"” in which memory? "+strings.Join(opts, " · ")+" · esc: cancel")
	return nil
}

// memoryKey answers the question rememberLine asked.
func (m *model) memoryKey(k tea.KeyPressMsg) tea.Cmd {
	line := m.x.memLine
	if k.String() == "esc" {
		m.x.memLine = ""
		m.tr.notice(levelInfo, "Not remembered.")
		return nil
	}
	mem := m.be.Features().Memory
	if mem == nil {
		m.x.memLine = ""
		return nil
	}
	for _, f := range mem.MemoryFiles() {
		if k.String() == f.Scope[:1] {
			m.x.memLine = ""
			if err := mem.AppendMemory(f.Path, line); err != nil {
				m.tr.notice(levelError, err.Error())
			} else {
				m.tr.notice(levelInfo, "Remembered in "+f.Path+" (sessions read it from their next start; /memory edits it).")
			}
			return nil
		}
	}
	return nil // another key: the question stays
}

// cmdMemory opens an instruction file in $EDITOR: /memory project or
// /memory user, or the first one that exists.
func (m *model) cmdMemory(args string) tea.Cmd {
	mem := m.be.Features().Memory
	if mem == nil {
		m.tr.notice(levelError, "this session has no memory files")
		return nil
	}
	files := mem.MemoryFiles()
	if len(files) == 0 {
		return nil
	}
	pick := files[0]
	for _, f := range files {
		if args != "" && f.Scope == args {
			pick = f
		}
	}
	if args != "" && pick.Scope != args {
		m.tr.notice(levelWarn, "use /memory project or /memory user")
		return nil
	}
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		m.tr.notice(levelWarn, "set $EDITOR (e.g. export EDITOR=nano) to edit "+pick.Path+" here; or open it in any editor")
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(pick.Path), 0o755); err != nil {
		m.tr.notice(levelError, err.Error())
		return nil
	}
	// The editor runs through the shell as $EDITOR is written ("code -w").
	c := exec.Command("sh", "-c", editor+` "$1"`, "sh", pick.Path)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{path: pick.Path, err: err} })
}

// refreshStatusLine runs the statusLine command (one run at a time).
func (m *model) refreshStatusLine() tea.Cmd {
	sl := m.be.Features().StatusLine
	if sl == nil || !sl.HasStatusLine() || m.x.statusRunning {
		return nil
	}
	m.x.statusRunning = true
	used, limit := m.ctxUsed, m.ctxLimit
	return func() tea.Msg {
		text, err := sl.StatusLine(m.ctx, used, limit)
		return statusLineMsg{text: text, err: err}
	}
}

// customStatus is the statusLine command's line, above tandem's own.
func (m *model) customStatus() []string {
	if m.x.status == "" {
		return nil
	}
	return []string{m.x.status}
}

// notify rings the terminal and sends an OSC 9 notification (iTerm2,
// kitty, WezTerm, Windows Terminal show it; others ignore it) when the
// terminal reported it lost focus.
func (m *model) notify(text string) tea.Cmd {
	if !m.x.blurred {
		return nil
	}
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, text)
	if len(text) > 120 {
		text = text[:120] + "…"
	}
	return tea.Raw("\a\x1b]9;tandem: " + text + "\x07")
}

// eventsNotify notifies of a question waiting.
func (m *model) eventsNotify(evs eventsMsg) tea.Cmd {
	for _, e := range evs {
		if e.Type == event.PermissionRequest {
			return m.notify(e.ToolName + " waits for your answer")
		}
	}
	return nil
}

// extraMsg handles the messages of these features.
func (m *model) extraMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tea.FocusMsg:
		m.x.blurred = false
		return nil, true
	case tea.BlurMsg:
		m.x.blurred = true
		return nil, true
	case shellDoneMsg:
		m.shellDone(msg)
		return nil, true
	case statusLineMsg:
		m.x.statusRunning = false
		if msg.err != nil {
			m.x.status = m.th.warn.Render("statusLine: " + sanitize(msg.err.Error(), false))
		} else {
			m.x.status = sanitizeStatus(msg.text)
		}
		return nil, true
	case editorDoneMsg:
		if msg.err != nil {
			m.tr.notice(levelError, "editor: "+msg.err.Error())
		} else {
			m.tr.notice(levelInfo, "Saved "+msg.path+" (sessions read it from their next start).")
		}
		return nil, true
	}
	return nil, false
}

// afterTurn notifies that the turn ended and refreshes the status line.
func (m *model) afterTurn(msg turnDoneMsg) tea.Cmd {
	what := "turn finished"
	switch {
	case msg.err != nil:
		what = "turn failed: " + msg.err.Error()
	case msg.res.IsError:
		what = "turn ended: " + firstNonEmpty(msg.res.Subtype, "error")
	}
	return tea.Batch(m.notify(what), m.refreshStatusLine())
}

// sanitizeStatus keeps a status line's colours (SGR sequences, as Claude
// Code shows them) and drops every other control character.
func sanitizeStatus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] == ';' || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				b.WriteString(s[i : j+1])
				i = j
				continue
			}
		}
		if c < 0x20 || c == 0x7f {
			continue
		}
		b.WriteByte(c)
	}
	return b.String() + "\x1b[0m"
}
