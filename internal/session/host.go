package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// A Host is where a front end that shares its sessions with others in the
// process opens them: the chat bridges inside `tandem serve` share the
// server's (one live session per id, whichever front end opened it, one
// turn at a time through the server's queue, every event to every front
// end); alone, they share a LocalHost over the Manager. The front end
// depends on this interface, never on who implements it.
type Host interface {
	// Attach opens the session req names (req.ID: a stored one, else a
	// new one in req.Cwd), or joins it when it is open already, and
	// sends sink every event the session emits from now on, whichever
	// front end's turn emitted it. Asker and Sinks of req are ignored;
	// questions are answered through Attachment.Reply.
	Attach(ctx context.Context, req OpenRequest, sink event.Sink) (Attachment, error)
	// List returns the stored sessions the front end may see (the ones
	// it may offer to resume), as Manager.List orders them: the server's
	// Host lists what the account it acts as may see.
	List(ctx context.Context, opt ListOptions) ([]Summary, error)
}

// An Attachment is one front end's hold on a shared session.
type Attachment interface {
	// ID is the session's id.
	ID() string
	// Live is the session's one handle (Info, SetModel, SetMode,
	// Checkpoints, Rewind), opened again when the host closed it while
	// idle.
	Live(ctx context.Context) (*Live, error)
	// Prompt queues a turn: it runs once the turns before it (whoever
	// sent them) have ended. Its events go to every attachment, the
	// first a status event of subtype event.SubtypeUserMessage whose
	// Meta["origin"] is opts.Origin. queued: it waits behind another.
	Prompt(ctx context.Context, text string, opts TurnOptions) (queued bool, err error)
	// Interrupt stops the running turn, whoever started it, and drops
	// the queued ones; false when none ran.
	Interrupt(ctx context.Context) bool
	// Reply answers a pending question; the first answer from any front
	// end wins, a later one fails with permission.ErrAlreadyAnswered or
	// permission.ErrUnknownRequest.
	Reply(ctx context.Context, requestID string, ans permission.Answer) error
	// Busy reports a turn running or queued.
	Busy() bool
	// Detach stops the events; the host closes the session when nobody
	// else holds it (reason as Live.CloseFor's).
	Detach(reason string)
}

// LocalHost is the Host over a Manager alone (`tandem bridge`): it keeps
// the sessions its attachments opened, runs their turns one at a time in
// order and fans their events out.
type LocalHost struct {
	m *Manager

	mu       sync.Mutex
	sessions map[string]*localSession
}

// NewLocalHost returns a Host opening sessions through m.
func NewLocalHost(m *Manager) *LocalHost {
	return &LocalHost{m: m, sessions: map[string]*localSession{}}
}

// localSession is one session of a LocalHost with its attachments.
type localSession struct {
	h    *LocalHost
	live *Live

	mu      sync.Mutex
	closed  bool // the last attachment left: attach to a new one
	sinks   map[*localAttachment]event.Sink
	queue   []localTurn
	running bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type localTurn struct {
	text string
	opts TurnOptions
}

// Emit fans an event out to the attachments (the emitter's sink).
func (ls *localSession) Emit(e event.Event) {
	ls.mu.Lock()
	sinks := make([]event.Sink, 0, len(ls.sinks))
	for _, s := range ls.sinks {
		sinks = append(sinks, s)
	}
	ls.mu.Unlock()
	for _, s := range sinks {
		s.Emit(e)
	}
}

// List implements Host: every stored session (a process alone has no
// accounts).
func (h *LocalHost) List(ctx context.Context, opt ListOptions) ([]Summary, error) {
	return h.m.List(ctx, opt)
}

// Attach implements Host.
func (h *LocalHost) Attach(ctx context.Context, req OpenRequest, sink event.Sink) (Attachment, error) {
	if req.ID != "" {
		if s, err := h.m.Find(ctx, req.ID); err == nil {
			req.ID = s.ID
			h.mu.Lock()
			ls := h.sessions[s.ID]
			h.mu.Unlock()
			if a := ls.attach(sink); a != nil {
				return a, nil
			}
		}
	}
	ls := &localSession{h: h, sinks: map[*localAttachment]event.Sink{}}
	req.Sinks, req.Asker, req.AnswerByReply = []event.Sink{ls}, nil, true
	l, err := h.m.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	ls.live = l
	h.mu.Lock()
	if other := h.sessions[l.ID()]; other != nil {
		// Opened twice at once: keep the first.
		h.mu.Unlock()
		l.Close()
		if a := other.attach(sink); a != nil {
			return a, nil
		}
		return nil, fmt.Errorf("session %s closed while it was opened: try again", l.ID())
	}
	h.sessions[l.ID()] = ls
	a := ls.attach(sink)
	h.mu.Unlock()
	return a, nil
}

// attach adds an attachment; nil when the session is closing.
func (ls *localSession) attach(sink event.Sink) *localAttachment {
	if ls == nil {
		return nil
	}
	a := &localAttachment{ls: ls, id: ls.live.ID()}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closed {
		return nil
	}
	ls.sinks[a] = sink
	return a
}

// localAttachment implements Attachment for a LocalHost.
type localAttachment struct {
	ls *localSession
	id string // the session's, read without the Live's lock (a sink may ask)
}

func (a *localAttachment) ID() string { return a.id }

func (a *localAttachment) Live(context.Context) (*Live, error) { return a.ls.live, nil }

func (a *localAttachment) Prompt(_ context.Context, text string, opts TurnOptions) (bool, error) {
	ls := a.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.running {
		ls.queue = append(ls.queue, localTurn{text, opts})
		return true, nil
	}
	ls.running = true
	ls.wg.Add(1)
	go ls.work(localTurn{text, opts})
	return false, nil
}

// work runs t and then the turns queued meanwhile, in order.
func (ls *localSession) work(t localTurn) {
	defer ls.wg.Done()
	for {
		ctx, cancel := context.WithCancel(context.Background())
		ls.mu.Lock()
		ls.cancel = cancel
		ls.mu.Unlock()
		RunShared(ctx, ls.live, t.text, t.opts)
		cancel()
		ls.mu.Lock()
		ls.cancel = nil
		if len(ls.queue) == 0 {
			ls.running = false
			ls.mu.Unlock()
			return
		}
		t, ls.queue = ls.queue[0], ls.queue[1:]
		ls.mu.Unlock()
	}
}

// RunShared runs a turn of a session several front ends follow: every
// one of them sees it start (a user_message status with the prompt and
// its origin) and end (a result and done, also when the turn could not
// start).
func RunShared(ctx context.Context, l *Live, text string, opts TurnOptions) (event.Event, error) {
	if !opts.Resume {
		l.Events().Emit(UserMessage(text, opts.Origin))
	}
	res, err := l.Run(ctx, text, opts)
	if err != nil && res.Type != event.Result {
		msg := err.Error()
		l.Events().Emit(event.Event{Type: event.Error, Error: msg})
		res = l.Events().Publish(event.Event{Type: event.Result, Subtype: event.SubtypeError, IsError: true, Error: msg})
		l.Events().Emit(event.Event{Type: event.Done})
		_ = l.SaveSeq(context.WithoutCancel(ctx))
	}
	return res, err
}

// UserMessage is the status event a shared turn starts with: the prompt,
// and in Meta["origin"] the front end that sent it (when it says).
func UserMessage(text, origin string) event.Event {
	e := event.Event{Type: event.Status, Subtype: event.SubtypeUserMessage, Text: text}
	if origin != "" {
		e.Meta = map[string]any{"origin": origin}
	}
	return e
}

func (a *localAttachment) Interrupt(context.Context) bool {
	ls := a.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.queue = nil
	if ls.cancel != nil {
		ls.cancel()
		return true
	}
	return false
}

func (a *localAttachment) Reply(_ context.Context, requestID string, ans permission.Answer) error {
	return a.ls.live.Reply(requestID, ans)
}

func (a *localAttachment) Busy() bool {
	a.ls.mu.Lock()
	defer a.ls.mu.Unlock()
	return a.ls.running
}

// Detach implements Attachment: the last one out interrupts the running
// turn, waits for it and closes the session. It keeps its sink until the
// turn ended, so the front end sees the turn's end (its result and done)
// rather than waiting for events that no longer come.
func (a *localAttachment) Detach(reason string) {
	ls := a.ls
	ls.mu.Lock()
	_, held := ls.sinks[a]
	last := held && len(ls.sinks) == 1
	if last {
		ls.closed = true // no one joins a session on its way out
	} else {
		delete(ls.sinks, a)
	}
	ls.mu.Unlock()
	if !last {
		return
	}
	h := ls.h
	h.mu.Lock()
	if h.sessions[ls.live.ID()] == ls {
		delete(h.sessions, ls.live.ID())
	}
	h.mu.Unlock()
	a.Interrupt(context.Background())
	ls.wg.Wait()
	ls.mu.Lock()
	delete(ls.sinks, a)
	ls.mu.Unlock()
	ls.live.CloseFor(reason)
}

// Make sure both sides keep to the contract.
var _ Host = (*LocalHost)(nil)
