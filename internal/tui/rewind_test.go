package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/message"
)

// rewindBackend is a fakeBackend that keeps checkpoints; its first rewind
// without force meets a file changed outside tandem when conflict is set.
type rewindBackend struct {
	*fakeBackend
	cps      []checkpoint.Summary
	conflict bool
	mu       sync.Mutex
	rewinds  []checkpoint.RewindOptions
	numbers  []int
}

func (b *rewindBackend) Features() Features {
	f := b.fakeBackend.Features()
	f.Rewind = b
	return f
}

func (b *rewindBackend) Checkpoints(context.Context) ([]checkpoint.Summary, error) { return b.cps, nil }

func (b *rewindBackend) Rewind(_ context.Context, n int, opt checkpoint.RewindOptions) (checkpoint.ResultSummary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rewinds, b.numbers = append(b.rewinds, opt), append(b.numbers, n)
	if b.conflict && !opt.Force {
		return checkpoint.ResultSummary{}, &checkpoint.ConflictError{Paths: []string{"notes.txt"}}
	}
	if !opt.FilesOnly {
		b.fakeBackend.mu.Lock()
		b.fakeBackend.history = b.fakeBackend.history[:1] // prompt 2 and what followed are set aside
		b.fakeBackend.mu.Unlock()
	}
	return checkpoint.ResultSummary{Checkpoint: n, Restored: []string{"notes.txt"}, Removed: []string{"new.txt"}}, nil
}

func newRewindHarness(t *testing.T, conflict bool) (*harness, *rewindBackend) {
	fb := newFake()
	fb.history = []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("first prompt")}},
		{Role: message.User, Content: []message.Block{message.TextBlock("second prompt")}},
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rb := &rewindBackend{fakeBackend: fb, conflict: conflict, cps: []checkpoint.Summary{
		{Number: 1, CreatedAt: at, Prompt: "first prompt"},
		{Number: 2, CreatedAt: at.Add(time.Minute), Prompt: "second prompt\nwith a second line",
			Files: []checkpoint.FileSummary{{Path: "notes.txt", State: "saved"}, {Path: "new.txt", State: "absent"}}},
	}}
	h := newHarness(t, Options{Backend: rb})
	h.be = fb
	return h, rb
}

// /rewind lists the prompts newest first; picking one and "b" puts back
// files and conversation, and the prompt returns to the editor.
func TestRewindPicksAPromptAndRestores(t *testing.T) {
	h, rb := newRewindHarness(t, false)
	h.slash("/rewind")
	h.mustShow("Rewind to before a prompt")
	h.mustShow("2  12-01")
	h.mustShow("second prompt  (2 files)")
	if h.contains("with a second line") {
		t.Errorf("a prompt's later lines are listed:\n%s", h.plain())
	}
	h.press(tea.KeyEnter, 0)
	h.mustShow("Rewind to before prompt 2")
	h.mustShow("files put back: notes.txt, new.txt")
	h.typeText("b")
	h.waitFor("the rewind", func() bool { return h.contains("Rewound to before prompt 2: 1 files restored, 1 removed") })
	if got := h.m.in.value(); got != "second prompt\nwith a second line" {
		t.Errorf("editor holds %q, want the prompt rewound over", got)
	}
	if h.contains("Rewind to before") || strings.Count(h.plain(), "second prompt") != 1 { // the editor's only
		t.Errorf("overlay open or the rewound prompt still shown:\n%s", h.plain())
	}
	h.mustShow("› first prompt")
	if opt := rb.rewinds[0]; rb.numbers[0] != 2 || opt.FilesOnly || opt.ConversationOnly || opt.Force {
		t.Errorf("rewind %d %+v", rb.numbers[0], opt)
	}
}

// Esc twice on an empty editor opens it; the older prompt, conversation
// only, goes back without touching files; files only keeps the conversation.
func TestRewindByEscTwiceAndChoices(t *testing.T) {
	h, rb := newRewindHarness(t, false)
	h.press(tea.KeyEscape, 0)
	if h.m.rewind != nil {
		t.Fatal("one esc opened /rewind")
	}
	h.press(tea.KeyEscape, 0)
	h.waitFor("the list", func() bool { return h.contains("first prompt") && h.contains("second prompt") })
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyEnter, 0)
	h.mustShow("Rewind to before prompt 1")
	h.typeText("c")
	h.waitFor("the rewind", func() bool { return h.contains("Rewound to before prompt 1. The prompt is back") })
	if opt := rb.rewinds[0]; rb.numbers[0] != 1 || !opt.ConversationOnly {
		t.Errorf("rewind %d %+v", rb.numbers[0], opt)
	}
	h.m.in.reset()
	h.slash("/rewind")
	h.waitFor("the list", func() bool { return h.contains("Rewind to before a prompt") })
	h.press(tea.KeyEnter, 0)
	h.typeText("f")
	h.waitFor("the rewind", func() bool { return h.contains("1 removed; the conversation is") })
	if opt := rb.rewinds[1]; !opt.FilesOnly || h.m.in.value() != "" {
		t.Errorf("files only: %+v, editor %q", opt, h.m.in.value())
	}
}

// A file changed outside tandem stops the rewind with its name; "o"
// overwrites it.
func TestRewindConflictThenOverwrite(t *testing.T) {
	h, rb := newRewindHarness(t, true)
	h.slash("/rewind")
	h.waitFor("the list", func() bool { return h.contains("second prompt") })
	h.press(tea.KeyEnter, 0)
	h.typeText("b")
	h.waitFor("the conflict", func() bool { return h.contains("notes.txt changed outside tandem") })
	h.mustShow("[o] overwrite those changes and rewind anyway")
	h.typeText("o")
	h.waitFor("the rewind", func() bool { return h.contains("Rewound to before prompt 2") })
	if len(rb.rewinds) != 2 || !rb.rewinds[1].Force {
		t.Errorf("rewinds %+v", rb.rewinds)
	}
}

// A backend without checkpoints says so.
func TestRewindWithoutCheckpoints(t *testing.T) {
	h := newHarness(t, Options{})
	h.slash("/rewind")
	h.mustShow("keeps no checkpoints")
}
