package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

type itemKind int

const (
	kindUser itemKind = iota
	kindAssistant
	kindThinking
	kindTool
	kindNotice
	kindTodo
)

type level int

const (
	levelInfo level = iota
	levelWarn
	levelError
)

// item is one block of the conversation. Its rendered lines are cached
// per width; streaming items re-render at most every streamRender, so a
// key press while an answer streams never waits on Markdown.
type item struct {
	kind      itemKind
	text      string
	streaming bool
	level     level
	tool      *toolCard
	todos     []todoLine

	// A streaming answer renders its finished blocks once (stable*) and
	// only the block being written on each frame.
	stableCut   int
	stableLines []string
	stableW     int

	lines      []string
	cachedW    int
	cachedWide bool // rendered with details shown
	dirty      bool
	renderedAt time.Time
}

type todoLine struct{ status, content string }

const streamRender = 50 * time.Millisecond

func (it *item) touch() { it.dirty = true }

// transcript is the conversation as shown: items in order, the ones still
// streaming, tool cards by id, and the scroll position.
type transcript struct {
	items        []*item
	byTool       map[string]*item
	openText     *item
	openThinking *item
	offset       int // lines scrolled up from the bottom (0 follows the output)
	// While scrolled up, the top item on screen and the lines from it to
	// the end: output that arrives meanwhile grows the offset, so the
	// lines being read stay put.
	anchor, anchorLines int
	details             bool // thinking and full tool output shown
	// keepRendered bounds the memory held by rendered lines: items this
	// far above the screen drop their cache and re-render if scrolled to.
	keepRendered int
}

func newTranscript() *transcript {
	return &transcript{byTool: map[string]*item{}, keepRendered: 40, anchor: -1}
}

func (t *transcript) add(it *item) *item {
	it.dirty = true
	t.items = append(t.items, it)
	return it
}

// endStreams closes the open text and thinking blocks (a tool call or the
// end of the turn follows them).
func (t *transcript) endStreams() {
	for _, it := range []*item{t.openText, t.openThinking} {
		if it != nil {
			it.streaming = false
			it.touch()
		}
	}
	t.openText, t.openThinking = nil, nil
}

func (t *transcript) notice(lv level, text string) {
	t.add(&item{kind: kindNotice, level: lv, text: text})
}

func (t *transcript) clear() {
	*t = transcript{byTool: map[string]*item{}, keepRendered: t.keepRendered, details: t.details, anchor: -1}
}

// view returns exactly height lines of the conversation ending offset
// lines above its bottom, rendering only the items that reach the screen.
func (t *transcript) view(th *theme, width, height int, now time.Time) []string {
	if height <= 0 {
		return nil
	}
	if t.offset > 0 && t.anchor >= 0 && t.anchor < len(t.items) {
		t.offset += t.tailLines(t.anchor, th, width, now) - t.anchorLines
	}
	need := height + t.offset
	var rev []string // lines, last first
	first := len(t.items)
	for i := len(t.items) - 1; i >= 0 && len(rev) < need; i-- {
		lines := t.render(t.items[i], th, width, now)
		for j := len(lines) - 1; j >= 0; j-- {
			rev = append(rev, lines[j])
		}
		if i > 0 {
			rev = append(rev, "") // a blank line between items
		}
		first = i
	}
	// Scrolled past the top: stop at the first line.
	if maxOff := len(rev) - height; t.offset > maxOff {
		t.offset = max(maxOff, 0)
	}
	start := t.offset
	end := min(start+height, len(rev))
	out := make([]string, 0, height)
	for j := end - 1; j >= start; j-- {
		out = append(out, rev[j])
	}
	for len(out) < height {
		out = append(out, "")
	}
	t.anchor, t.anchorLines = -1, 0
	if t.offset > 0 {
		t.anchor, t.anchorLines = first, t.tailLines(first, th, width, now)
	}
	for i := 0; i < first-t.keepRendered; i++ {
		if it := t.items[i]; it.lines != nil && !it.streaming {
			it.lines = nil
		}
	}
	return out
}

// tailLines counts the lines from item from to the end, as view lays them out.
func (t *transcript) tailLines(from int, th *theme, width int, now time.Time) int {
	n := 0
	for i := from; i < len(t.items); i++ {
		n += len(t.render(t.items[i], th, width, now))
		if i > 0 {
			n++
		}
	}
	return n
}

// render returns the item's lines at width, from the cache when it is
// fresh (or streaming and rendered less than streamRender ago).
func (t *transcript) render(it *item, th *theme, width int, now time.Time) []string {
	fresh := it.lines != nil && it.cachedW == width && it.cachedWide == t.details
	if fresh && (!it.dirty || (it.streaming && now.Sub(it.renderedAt) < streamRender)) {
		return it.lines
	}
	lines := renderItem(it, th, width, t.details)
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	it.lines, it.cachedW, it.cachedWide, it.dirty, it.renderedAt = lines, width, t.details, false, now
	return lines
}

// pendingRender reports whether a streaming item waits for its next render.
func (t *transcript) pendingRender() bool {
	for _, it := range []*item{t.openText, t.openThinking} {
		if it != nil && it.dirty {
			return true
		}
	}
	return false
}

func (t *transcript) scroll(lines int) {
	t.offset = max(t.offset+lines, 0)
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
