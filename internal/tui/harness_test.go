package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// fakeBackend records what the UI asks. Its turns last until the test
// releases them or the UI cancels them.
type fakeBackend struct {
	mu       sync.Mutex
	info     SessionInfo
	prompts  []string
	replies  []permission.Answer
	modes    []string
	models   []string
	opened   []string
	history  []message.Message
	subs     []session.SubagentRun
	sessions []session.Summary
	release  chan event.Event
	canceled int
}

func newFake() *fakeBackend {
	return &fakeBackend{info: SessionInfo{ID: "ses_1", Cwd: "/w", Model: "anthropic/claude-sonnet-4-5", Mode: "normal"}, release: make(chan event.Event, 8)}
}

func (f *fakeBackend) Info() SessionInfo { f.mu.Lock(); defer f.mu.Unlock(); return f.info }
func (f *fakeBackend) Run(ctx context.Context, p string) (event.Event, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	f.mu.Unlock()
	select {
	case res := <-f.release:
		return res, nil
	case <-ctx.Done():
		f.mu.Lock()
		f.canceled++
		f.mu.Unlock()
		return event.Event{Type: event.Result, Subtype: event.SubtypeInterrupted}, nil
	}
}
func (f *fakeBackend) Reply(id string, a permission.Answer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, a)
	return nil
}
func (f *fakeBackend) SetMode(_ context.Context, m string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modes = append(f.modes, m)
	f.info.Mode = m
	return nil
}
func (f *fakeBackend) SetModel(_ context.Context, m string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.models = append(f.models, m)
	f.info.Model = m
	return nil
}
func (f *fakeBackend) Sessions(context.Context) ([]session.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions, nil
}
func (f *fakeBackend) Open(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, id)
	f.info.ID = firstNonEmpty(id, "ses_new")
	return nil
}
func (f *fakeBackend) History(context.Context) ([]message.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.history, nil
}

// Features are the fake's: stored sub-agent runs only.
func (f *fakeBackend) Features() Features { return Features{Subagents: f} }

func (f *fakeBackend) SubagentHistory(context.Context, []message.Message) ([]session.SubagentRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.subs, nil
}

// harness drives the model as Bubble Tea would: Update on one goroutine,
// commands on others, their messages fed back.
type harness struct {
	t      *testing.T
	m      *model
	be     *fakeBackend
	msgs   chan tea.Msg
	quit   bool
	cancel context.CancelFunc
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	be := newFake()
	if opts.Backend == nil {
		opts.Backend = be
	}
	if opts.Env == nil {
		opts.Env = []string{"TERM=xterm-256color"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, m: newModel(ctx, opts), be: be, msgs: make(chan tea.Msg, 64), cancel: cancel}
	h.m.armDelay = 0 // TestPermissionDialogArms has the delay; the others answer at once
	t.Cleanup(func() { cancel(); h.m.shutdown() })
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.run(h.m.Init())
	h.settle()
	return h
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			h.msgs <- msg
		}
	}()
}

// settle feeds back messages until none arrives for 60 ms.
func (h *harness) settle() {
	for {
		select {
		case msg := <-h.msgs:
			h.dispatch(msg)
		case <-time.After(60 * time.Millisecond):
			return
		}
	}
}

// waitFor feeds messages back until cond holds (15 s at most: CI machines are loaded).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.dispatch(msg)
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.plain())
		}
	}
}

func (h *harness) dispatch(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case tea.QuitMsg:
		h.quit = true
	default:
		h.send(msg)
	}
}

func (h *harness) events(es ...event.Event) { h.send(eventsMsg(es)); h.settle() }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	h.settle()
}

// slash types a command and runs it with Enter.
func (h *harness) slash(text string) {
	h.typeText(text)
	h.press(tea.KeyEnter, 0)
}

func (h *harness) press(code rune, mod tea.KeyMod) {
	h.send(tea.KeyPressMsg{Code: code, Mod: mod})
	h.settle()
}

// plain is the screen without styles.
func (h *harness) plain() string { return ansi.Strip(h.m.screen()) }

func (h *harness) contains(s string) bool { return strings.Contains(h.plain(), s) }

func (h *harness) mustShow(s string) {
	h.t.Helper()
	if !h.contains(s) {
		h.t.Fatalf("screen lacks %q:\n%s", s, h.plain())
	}
}
