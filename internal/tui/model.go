package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// model is the whole UI state. It is a pointer: Bubble Tea hands it back
// from Update, and the turn goroutine's bookkeeping (wg) must not be copied.
type model struct {
	ctx  context.Context
	be   Backend
	opts Options
	th   *theme

	width, height int
	tr            *transcript
	in            *input
	info          SessionInfo

	busy       bool
	turnCancel context.CancelFunc
	turnStart  time.Time
	turns      sync.WaitGroup
	queue      []string

	perms []event.Event // permission requests waiting, first on screen
	dlg   permDialog
	// dlgSince is when perms[0] came on screen; armDelay how long after
	// it keys still go to the prompt (dialogArmed).
	dlgSince time.Time
	armDelay time.Duration
	picker   *picker
	rewind   *rewinder
	mcp      *mcpPanel
	// lastEsc is when esc was last pressed: twice on an empty editor
	// while idle opens /rewind.
	lastEsc time.Time

	quitArmed         bool
	spin              int
	ticking           bool
	ctxUsed, ctxLimit int64
	files             []string
	models            []ModelOption
	filesLoading      bool
	quitting          bool
	now               func() time.Time
	x                 extras // extras.go
}

func newModel(ctx context.Context, opts Options) *model {
	th := newTheme(noColor(opts.Env))
	m := &model{ctx: ctx, be: opts.Backend, opts: opts, th: th, tr: newTranscript(),
		in: newInput(th, opts.HistoryFile), width: 80, height: 24, now: time.Now, armDelay: dialogArmDelay}
	m.info = opts.Backend.Info()
	if opts.Width > 0 && opts.Height > 0 {
		m.width, m.height = opts.Width, opts.Height
	}
	m.layout()
	return m
}

// Messages the model sends itself.
type (
	turnDoneMsg struct {
		res event.Event
		err error
	}
	tickMsg   struct{}
	disarmMsg struct{}
	armedMsg  struct{} // a permission dialog takes keys now: redraw it
	filesMsg  []string
	actionMsg struct {
		text string
		err  error
	}
	historyMsg struct {
		msgs []message.Message
		subs []session.SubagentRun // the sub-agents calls in msgs started
		err  error
		// subErr: the sub-agents could not be read (the conversation is
		// shown without them).
		subErr error
		// note, when set, is said after the conversation (instead of
		// "Resumed session").
		note string
	}
	sessionsMsg struct {
		list []sessionRow
		err  error
	}
	openedMsg struct{ err error }
)

func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadHistory(), m.refreshStatusLine()}
	if p := strings.TrimSpace(m.opts.Prompt); p != "" {
		cmds = append(cmds, func() tea.Msg { return submitMsg(p) })
	}
	return tea.Batch(cmds...)
}

type submitMsg string

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.extraMsg(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case clipPastedMsg:
		m.clipPasted(msg)
		return m, nil
	case tea.PasteMsg:
		return m, m.pasted(msg.Content)
	case eventsMsg:
		for _, e := range msg {
			m.apply(e)
		}
		return m, tea.Batch(m.ensureTick(), m.armTimer(), m.eventsNotify(msg))
	case submitMsg:
		return m, m.submit(string(msg))
	case turnDoneMsg:
		return m, tea.Batch(m.turnDone(msg), m.afterTurn(msg))
	case tickMsg:
		m.ticking = false
		m.spin++
		m.tickCards()
		return m, m.ensureTick()
	case disarmMsg:
		m.quitArmed = false
		return m, nil
	case armedMsg:
		return m, m.armTimer() // nil once armed; a newer request waits its own delay
	case filesMsg:
		m.files, m.filesLoading = msg, false
		m.refreshCompletion()
		return m, nil
	case actionMsg:
		if msg.err != nil {
			m.tr.notice(levelError, msg.err.Error())
		} else if msg.text != "" {
			m.tr.notice(levelInfo, msg.text)
		}
		m.info = m.mergeInfo(m.be.Info())
		return m, nil
	case historyMsg:
		m.showHistory(msg)
		return m, nil
	case sessionsMsg:
		if m.picker != nil {
			m.picker.loaded(msg)
		}
		return m, nil
	case openedMsg:
		return m, m.opened(msg)
	case checkpointsMsg:
		if m.rewind != nil {
			m.rewind.loaded(msg)
		}
		return m, nil
	case rewoundMsg:
		return m, m.rewound(msg)
	case mcpTickMsg:
		return m, m.mcpTick()
	case mcpActedMsg:
		m.mcpActed(msg)
		return m, nil
	}
	return m, nil
}

// mergeInfo keeps what events told us when the backend's record lags.
func (m *model) mergeInfo(fresh SessionInfo) SessionInfo {
	fresh.Mode = firstNonEmpty(fresh.Mode, m.info.Mode)
	fresh.Model = firstNonEmpty(fresh.Model, m.info.Model)
	return fresh
}

// layout sizes the editor for the terminal.
func (m *model) layout() {
	m.in.setWidth(m.width - 2)
}

// submit sends a prompt now, or queues it while a turn runs.
func (m *model) submit(text string) tea.Cmd {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if cmd, ok := m.extraSubmit(text); ok {
		return cmd
	}
	if strings.HasPrefix(strings.TrimSpace(text), "/") {
		if cmd, ok := m.runSlash(text); ok {
			return cmd
		}
	}
	return m.turn(text)
}

// turn runs text as a turn now, or queues it while one runs.
func (m *model) turn(text string) tea.Cmd {
	if m.busy {
		m.queue = append(m.queue, text)
		return nil
	}
	return m.startTurn(text)
}

func (m *model) startTurn(text string) tea.Cmd {
	m.tr.add(&item{kind: kindUser, text: sanitize(text, true)})
	m.tr.offset = 0
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.turnCancel, m.turnStart = true, cancel, m.now()
	m.turns.Add(1)
	prepared := m.prepareRun(text)
	run := func() tea.Msg {
		defer m.turns.Done()
		res, err := prepared(ctx)
		return turnDoneMsg{res: res, err: err}
	}
	return tea.Batch(run, m.ensureTick())
}

func (m *model) turnDone(msg turnDoneMsg) tea.Cmd {
	m.busy = false
	if m.turnCancel != nil {
		m.turnCancel()
		m.turnCancel = nil
	}
	m.perms, m.dlg = nil, permDialog{}
	if msg.err != nil {
		// A turn that ended normally closes its streams with its result
		// event, which may still be on its way from the sink: closing here
		// would split the answer's last words into a block of their own.
		m.tr.endStreams()
	}
	m.finishCards()
	if msg.err != nil {
		m.tr.notice(levelError, msg.err.Error())
	}
	m.info = m.mergeInfo(m.be.Info())
	if m.quitting {
		return tea.Quit
	}
	if len(m.queue) > 0 {
		next := m.queue[0]
		m.queue = m.queue[1:]
		return m.startTurn(next)
	}
	return nil
}

// interrupt stops the running turn; the UI stays usable and what was done
// is stored by the session.
func (m *model) interrupt() {
	if m.busy && m.turnCancel != nil {
		m.turnCancel()
	}
}

// quit leaves the UI; a running turn is interrupted first and the program
// ends once it is stored.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	m.queue = nil
	if m.busy {
		m.interrupt()
		return nil
	}
	return tea.Quit
}

// shutdown runs after the program ends: nothing may outlive Run.
func (m *model) shutdown() {
	m.interrupt()
	m.turns.Wait()
}

// ensureTick keeps one timer running while something animates: the
// spinner of a running turn, or a streamed block waiting for its render.
func (m *model) ensureTick() tea.Cmd {
	if m.ticking || (!m.busy && !m.tr.pendingRender()) {
		return nil
	}
	m.ticking = true
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// action runs fn off the UI goroutine and reports its outcome.
func (m *model) action(fn func(ctx context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		text, err := fn(m.ctx)
		return actionMsg{text: text, err: err}
	}
}

// modeCycle is the order shift+tab walks: from normal to explore (safer
// first), then trust, then back to normal.
var modeCycle = []string{string(permission.Normal), string(permission.Explore), string(permission.Trust)}

func nextMode(cur string) string {
	for i, md := range modeCycle {
		if md == cur {
			return modeCycle[(i+1)%len(modeCycle)]
		}
	}
	return modeCycle[0]
}

func (m *model) setMode(mode string) tea.Cmd {
	m.info.Mode = mode // shown at once; an error puts the stored one back
	return func() tea.Msg {
		if err := m.be.SetMode(m.ctx, mode); err != nil {
			return actionMsg{err: fmt.Errorf("mode %s: %w", mode, err)}
		}
		return actionMsg{}
	}
}

func (m *model) loadHistory() tea.Cmd { return m.loadHistoryThen("") }

// loadHistoryThen loads the conversation and says note after it.
func (m *model) loadHistoryThen(note string) tea.Cmd {
	return func() tea.Msg {
		msgs, err := m.be.History(m.ctx)
		h := historyMsg{msgs: msgs, err: err, note: note}
		if sh := m.be.Features().Subagents; sh != nil && err == nil {
			h.subs, h.subErr = sh.SubagentHistory(m.ctx, msgs)
		}
		return h
	}
}

// switchTo opens another session ("" a new one) and shows its history.
func (m *model) switchTo(id string) tea.Cmd {
	return func() tea.Msg { return openedMsg{err: m.be.Open(m.ctx, id)} }
}

func (m *model) opened(msg openedMsg) tea.Cmd {
	if msg.err != nil {
		m.tr.notice(levelError, msg.err.Error())
		return nil
	}
	m.tr.clear()
	m.perms, m.queue, m.ctxUsed, m.ctxLimit = nil, nil, 0, 0
	m.info = m.be.Info()
	return m.loadHistory()
}
