package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// input is the prompt editor: a multi-line textarea with prompt history,
// large pastes folded into placeholders, and completion of slash commands
// and @file mentions.
type input struct {
	ta       textarea.Model
	history  []string // oldest first
	histPos  int      // len(history): editing a new prompt
	draft    string   // the new prompt while browsing history
	histFile string

	pastes map[string]string // placeholder -> pasted text
	nPaste int

	comp completion
}

// pasteFold is how large a paste must be to show as a placeholder.
const (
	pasteFoldLines = 8
	pasteFoldChars = 800
	historyKeep    = 500
	inputMaxLines  = 8
)

func newInput(th *theme, histFile string) *input {
	ta := textarea.New()
	ta.Placeholder = "Ask tandem… (/ for commands, @ for files, ctrl+j for a new line)"
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = inputMaxLines
	ta.CharLimit = 0
	// Enter sends; these insert a line break.
	ta.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	// Ctrl+D quits and Ctrl+P/N are not history here: keep them off the textarea.
	ta.KeyMap.DeleteCharacterForward.SetKeys("delete")
	s := textarea.DefaultDarkStyles()
	if th.plain {
		s.Focused.CursorLine = lipgloss.NewStyle()
		s.Focused.Placeholder = lipgloss.NewStyle()
		s.Focused.Prompt = lipgloss.NewStyle()
		s.Focused.EndOfBuffer = lipgloss.NewStyle()
	} else {
		s.Focused.CursorLine = lipgloss.NewStyle()
		s.Focused.Prompt = lipgloss.NewStyle().Foreground(lipgloss.Color("12"))
	}
	s.Cursor.Blink = false // a blinking cursor redraws the screen twice a second for nothing
	ta.SetStyles(s)
	ta.Focus()
	in := &input{ta: ta, histFile: histFile, pastes: map[string]string{}}
	in.history = loadHistory(histFile)
	in.histPos = len(in.history)
	return in
}

func (in *input) setWidth(w int) { in.ta.SetWidth(max(w, 10)) }

func (in *input) value() string { return in.ta.Value() }

func (in *input) reset() {
	in.ta.Reset()
	in.pastes = map[string]string{}
	in.histPos = len(in.history)
	in.comp.close()
}

func (in *input) set(s string) {
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
}

// take returns the prompt with pasted texts expanded, remembers it in the
// history and clears the editor.
func (in *input) take() string {
	raw := in.ta.Value()
	out := raw
	for ph, text := range in.pastes {
		out = strings.ReplaceAll(out, ph, text)
	}
	if strings.TrimSpace(raw) != "" {
		in.remember(out)
	}
	in.reset()
	return out
}

func (in *input) remember(s string) {
	if n := len(in.history); n > 0 && in.history[n-1] == s {
		return
	}
	in.history = append(in.history, s)
	if len(in.history) > historyKeep {
		in.history = in.history[len(in.history)-historyKeep:]
	}
	saveHistory(in.histFile, in.history)
}

// paste inserts pasted text; a large one becomes a placeholder that the
// prompt expands when sent (as Claude Code shows "[Pasted text #1 +40 lines]").
func (in *input) paste(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Count(s, "\n") + 1
	if lines < pasteFoldLines && len(s) < pasteFoldChars {
		in.ta.InsertString(s)
		return
	}
	in.nPaste++
	ph := fmt.Sprintf("[Pasted text #%d +%d lines]", in.nPaste, lines)
	in.pastes[ph] = s
	in.ta.InsertString(ph)
}

// historyUp shows the previous prompt when the cursor is on the first line.
func (in *input) historyUp() bool {
	if in.ta.Line() != 0 || in.histPos == 0 {
		return false
	}
	if in.histPos == len(in.history) {
		in.draft = in.ta.Value()
	}
	in.histPos--
	in.set(in.history[in.histPos])
	return true
}

// historyDown goes forward again, back to the draft at the end.
func (in *input) historyDown() bool {
	if in.ta.Line() != in.ta.LineCount()-1 || in.histPos >= len(in.history) {
		return false
	}
	in.histPos++
	if in.histPos == len(in.history) {
		in.set(in.draft)
	} else {
		in.set(in.history[in.histPos])
	}
	return true
}

func (in *input) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

// currentToken is the word before the cursor on the cursor's line.
func (in *input) currentToken() string {
	lines := strings.Split(in.ta.Value(), "\n")
	row := in.ta.Line()
	if row >= len(lines) {
		return ""
	}
	r := []rune(lines[row])
	col := min(in.ta.Column(), len(r))
	before := string(r[:col])
	if i := strings.LastIndexAny(before, " \t"); i >= 0 {
		before = before[i+1:]
	}
	return before
}

// replaceToken swaps the word before the cursor for s.
func (in *input) replaceToken(tok, s string) {
	v := in.ta.Value()
	lines := strings.Split(v, "\n")
	row := in.ta.Line()
	if row >= len(lines) {
		return
	}
	r := []rune(lines[row])
	col := min(in.ta.Column(), len(r))
	start := col - len([]rune(tok))
	if start < 0 {
		return
	}
	lines[row] = string(r[:start]) + s + string(r[col:])
	in.ta.SetValue(strings.Join(lines, "\n"))
	// SetValue leaves the cursor at the end; put it after the inserted text.
	for in.ta.Line() > row {
		in.ta.CursorUp()
	}
	in.ta.SetCursorColumn(start + len([]rune(s)))
}

func loadHistory(path string) []string {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		var s string
		if json.Unmarshal([]byte(l), &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	if len(out) > historyKeep {
		out = out[len(out)-historyKeep:]
	}
	return out
}

// saveHistory writes one JSON string per line (prompts span lines).
func saveHistory(path string, h []string) {
	if path == "" {
		return
	}
	var b strings.Builder
	for _, s := range h {
		j, _ := json.Marshal(s)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}
