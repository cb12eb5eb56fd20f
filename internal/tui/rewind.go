package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/checkpoint"
)

// Rewinder is implemented by a Backend whose sessions keep a checkpoint
// before each prompt: /rewind (or esc twice on an empty editor while no
// turn runs) goes back to before one of them, as Claude Code's does.
type Rewinder interface {
	// Checkpoints lists the open session's checkpoints, oldest first.
	Checkpoints(ctx context.Context) ([]checkpoint.Summary, error)
	// Rewind puts the files and/or the conversation back to just before
	// prompt number.
	Rewind(ctx context.Context, number int, opt checkpoint.RewindOptions) (checkpoint.ResultSummary, error)
}

// rewinder is the /rewind overlay: pick a prompt, then what to restore.
type rewinder struct {
	rows    []checkpoint.Summary // newest first
	sel     int
	loading bool
	err     error
	chosen  *checkpoint.Summary // set: choosing what to restore
	// restore is the choice last tried; conflict: it hit files changed
	// outside tandem, and "o" tries it again overwriting them.
	restore  string
	conflict bool
	working  bool
}

type (
	checkpointsMsg struct {
		list []checkpoint.Summary
		err  error
	}
	rewoundMsg struct {
		sum     checkpoint.ResultSummary
		prompt  string // back in the editor when the conversation went back
		restore string
		err     error
	}
)

// Restore choices, by key.
const (
	restoreBoth         = "both"
	restoreConversation = "conversation"
	restoreFiles        = "files"
)

func (m *model) cmdRewind(string) tea.Cmd {
	if m.busy {
		m.tr.notice(levelWarn, "Wait for the turn to end (or esc) before /rewind.")
		return nil
	}
	rw := m.be.Features().Rewind
	if rw == nil {
		m.tr.notice(levelWarn, "This session keeps no checkpoints to rewind to.")
		return nil
	}
	m.rewind = &rewinder{loading: true}
	return func() tea.Msg {
		list, err := rw.Checkpoints(m.ctx)
		return checkpointsMsg{list: list, err: err}
	}
}

func (r *rewinder) loaded(msg checkpointsMsg) {
	r.loading, r.err = false, msg.err
	r.rows = r.rows[:0]
	for i := len(msg.list) - 1; i >= 0; i-- {
		r.rows = append(r.rows, msg.list[i])
	}
}

func (m *model) rewindKey(k tea.KeyPressMsg) tea.Cmd {
	r := m.rewind
	if r.working {
		return nil
	}
	ks := k.String()
	if r.chosen == nil {
		switch ks {
		case "esc":
			m.rewind = nil
		case "up", "ctrl+p":
			r.sel = max(r.sel-1, 0)
		case "down", "ctrl+n":
			r.sel = min(r.sel+1, max(len(r.rows)-1, 0))
		case "enter":
			if r.sel < len(r.rows) {
				r.chosen, r.err, r.conflict = &r.rows[r.sel], nil, false
			}
		}
		return nil
	}
	switch ks {
	case "esc":
		r.chosen, r.err, r.conflict = nil, nil, false
	case "enter", "b":
		return m.doRewind(restoreBoth, false)
	case "c":
		return m.doRewind(restoreConversation, false)
	case "f":
		return m.doRewind(restoreFiles, false)
	case "o":
		if r.conflict {
			return m.doRewind(r.restore, true)
		}
	}
	return nil
}

func (m *model) doRewind(restore string, force bool) tea.Cmd {
	r := m.rewind
	r.working, r.restore, r.err, r.conflict = true, restore, nil, false
	cp := *r.chosen
	opt := checkpoint.RewindOptions{Force: force, FilesOnly: restore == restoreFiles, ConversationOnly: restore == restoreConversation}
	rw := m.be.Features().Rewind
	if rw == nil {
		r.working = false
		return nil
	}
	return func() tea.Msg {
		sum, err := rw.Rewind(m.ctx, cp.Number, opt)
		return rewoundMsg{sum: sum, prompt: cp.Prompt, restore: restore, err: err}
	}
}

// rewound shows the outcome: the conversation as it is now, with the
// prompt back in the editor when the conversation went back.
func (m *model) rewound(msg rewoundMsg) tea.Cmd {
	r := m.rewind
	if r == nil {
		return nil
	}
	r.working = false
	if msg.err != nil {
		var ce *checkpoint.ConflictError
		r.err, r.conflict = msg.err, errors.As(msg.err, &ce)
		return nil
	}
	m.rewind = nil
	s := msg.sum
	note := fmt.Sprintf("Rewound to before prompt %d", s.Checkpoint)
	if msg.restore != restoreConversation {
		note += fmt.Sprintf(": %d files restored, %d removed", len(s.Restored), len(s.Removed))
		if len(s.Skipped) > 0 {
			note += fmt.Sprintf(" (not restored, too large to have been saved: %s)", strings.Join(s.Skipped, ", "))
		}
	}
	if msg.restore == restoreFiles {
		note += "; the conversation is kept."
		m.tr.notice(levelInfo, note)
		return nil
	}
	m.in.set(msg.prompt)
	note += ". The prompt is back in the editor."
	m.tr.clear()
	m.queue, m.ctxUsed, m.ctxLimit = nil, 0, 0
	m.info = m.mergeInfo(m.be.Info())
	return m.loadHistoryThen(note)
}

func (m *model) rewindView(width, height int) []string {
	r := m.rewind
	th := m.th
	key := func(k string) string { return th.bold.Render("[" + k + "]") }
	var lines []string
	if r.chosen == nil {
		lines = append(lines, th.bold.Render("Rewind to before a prompt")+th.dim.Render("  ↑/↓ choose · enter pick · esc close"))
	} else {
		lines = append(lines, th.bold.Render(fmt.Sprintf("Rewind to before prompt %d", r.chosen.Number)),
			"  "+clipWidth(sanitize(firstLine(r.chosen.Prompt), false), width-8), "")
		lines = append(lines, wrap(key("b")+" files and conversation  "+key("c")+" conversation only  "+
			key("f")+" files only  "+key("esc")+" back", width-6)...)
		if files := changedFiles(r.rows, r.chosen.Number); len(files) > 0 {
			lines = append(lines, th.dim.Render(clipWidth("files put back: "+strings.Join(files, ", "), width-6)))
		}
	}
	switch {
	case r.loading:
		lines = append(lines, th.dim.Render("loading…"))
	case r.working:
		lines = append(lines, th.dim.Render("rewinding…"))
	case r.err != nil:
		lines = append(lines, wrap(th.err.Render(r.err.Error()), width-6)...)
		if r.conflict {
			lines = append(lines, key("o")+" overwrite those changes and rewind anyway")
		}
	}
	if r.chosen != nil {
		return box(lines, width, th)
	}
	if !r.loading && r.err == nil && len(r.rows) == 0 {
		lines = append(lines, th.dim.Render("no prompts to go back to yet"))
	}
	lines = append(lines, listRows(th, len(r.rows), r.sel, max(height-len(lines)-2, 1), width, func(i int) string {
		c := r.rows[i]
		l := fmt.Sprintf("%3d  %s  %s", c.Number, c.CreatedAt.Local().Format("01-02 15:04"), sanitize(firstLine(c.Prompt), false))
		if n := len(c.Files); n > 0 {
			l += th.dim.Render(fmt.Sprintf("  (%d files)", n))
		}
		return l
	})...)
	return box(lines, width, th)
}

// changedFiles are the files the turns from prompt number on changed:
// what a rewind to before it puts back.
func changedFiles(rows []checkpoint.Summary, number int) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range rows {
		if c.Number < number {
			continue
		}
		for _, f := range c.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, f.Path)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
