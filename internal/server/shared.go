package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// The server's sessions as a session.Host, for the front ends running in
// its process (the chat bridges of `tandem serve`): one sessState per
// session id, whichever front end opened it, so a chat's turn goes
// through the same queue (durable runner and event log included) as a
// web prompt, its events reach the SSE stream and the chat alike, and a
// permission question is answered once, from either side.

// HostOptions say who a Host's front end acts as.
type HostOptions struct {
	// Owner is the account (name or id) recorded as the owner of the
	// sessions the front end starts, as a web user's own; "": none, as
	// for sessions the server token starts (admins and the workspace's
	// owners manage them).
	Owner string
	// Actor names the front end in the audit log ("bridge:telegram").
	Actor string
	// Folders are where the front end starts sessions: those under no
	// registered workspace are logged, as their sessions are listed to
	// admins only.
	Folders []string
}

// Host returns the server's sessions as a session.Host.
func (s *Server) Host(ctx context.Context, opts HostOptions) (session.Host, error) {
	h := &serverHost{s: s, actor: cmp.Or(opts.Actor, "in-process")}
	if opts.Owner != "" {
		u, err := s.accounts.Get(ctx, opts.Owner)
		if err != nil {
			return nil, fmt.Errorf("owner %q: %w (tandem users list names the accounts)", opts.Owner, err)
		}
		h.owner = u.ID
	}
	for _, f := range opts.Folders {
		if _, ok, err := s.workspaces.WorkspaceForPath(ctx, f); err == nil && !ok {
			s.log.Warn("a folder of "+h.actor+" is in no registered workspace: its sessions are listed to admins only, and a chat acting as an owner who is no admin may not start one there (register it with --workspace and make the owner an editor)", "folder", f)
		}
	}
	return h, nil
}

type serverHost struct {
	s     *Server
	owner string // user id, "" none
	actor string
}

// Attach implements session.Host: a stored session joins (or gets) its
// sessState; a new one is opened with the hub as its sink, as POST
// /api/sessions opens one.
func (h *serverHost) Attach(ctx context.Context, req session.OpenRequest, sink event.Sink) (session.Attachment, error) {
	s := h.s
	if s.base.Err() != nil {
		return nil, errStopping
	}
	var st *sessState
	if req.ID != "" {
		if err := h.mayWrite(ctx, req.ID); err != nil {
			return nil, err
		}
		var e *apiError
		if st, e = s.state(ctx, req.ID); e != nil {
			return nil, fmt.Errorf("%s", e.Message)
		}
	} else {
		if err := h.mayStart(ctx, req.Cwd); err != nil {
			return nil, err
		}
		hb := s.newHub(0)
		l, err := s.mgr.Open(ctx, session.OpenRequest{Cwd: req.Cwd, AddDirs: req.AddDirs, Title: req.Title,
			Model: cmp.Or(strings.TrimSpace(req.Model), s.opts.DefaultModel), Runtime: cmp.Or(req.Runtime, s.opts.DefaultRuntime),
			Mode: cmp.Or(req.Mode, s.opts.DefaultMode), Sinks: []event.Sink{s.sinkFor(hb)}, AnswerByReply: true, FlagRules: s.opts.FlagRules})
		if err != nil {
			return nil, err
		}
		st = s.adopt(l, hb)
		ctx := context.WithoutCancel(ctx)
		if h.owner != "" {
			if err := s.accounts.SetOwner(ctx, st.id, h.owner); err != nil {
				s.log.Error("record session owner", "session", st.id, "err", err)
			}
		}
		h.audit(ctx, "session.create", st.id, "cwd="+l.Info().Cwd)
	}
	return &serverAttachment{h: h, st: st, stop: st.hub.listen(sink)}, nil
}

// List implements session.Host: what GET /api/sessions lists the owner
// (listVisible); every session for a front end with no owner, as for the
// server token.
func (h *serverHost) List(ctx context.Context, opt session.ListOptions) ([]session.Summary, error) {
	c, err := h.as(ctx)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return h.s.mgr.List(ctx, opt)
	}
	return h.s.listVisible(ctx, c, opt)
}

// as is the owner the front end acts as, read again at each use, so a
// change to the account (disabled, its workspaces and roles) applies to
// its chats as to its next web request; nil for a front end with no
// owner (the server token's standing).
func (h *serverHost) as(ctx context.Context) (*caller, error) {
	if h.owner == "" {
		return nil, nil
	}
	u, err := h.s.accounts.Get(ctx, h.owner)
	if err != nil {
		return nil, fmt.Errorf("%s's owner %s: %w", h.actor, h.owner, err)
	}
	if u.Disabled {
		return nil, fmt.Errorf("%s acts as %s: %w", h.actor, u.Name, accounts.ErrDisabled)
	}
	return &caller{user: u}, nil
}

// mayWrite applies to the owner the rule of the HTTP routes that prompt,
// answer or change a session (decideSession, write): a bridge reaches no
// session its owner could not reach from the web UI.
func (h *serverHost) mayWrite(ctx context.Context, id string) error {
	c, err := h.as(ctx)
	if err != nil || c == nil {
		return err
	}
	if _, e := h.s.decideSession(ctx, c, id, needSessionWrite); e != nil {
		return errors.New(e.Message)
	}
	return nil
}

// mayStart applies to the owner the rule of POST /api/sessions: write
// access to the folder.
func (h *serverHost) mayStart(ctx context.Context, cwd string) error {
	c, err := h.as(ctx)
	if err != nil || c == nil {
		return err
	}
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("folder %q is not an absolute path", cwd)
	}
	a, _, err := h.s.accounts.FolderAccess(ctx, c.user, filepath.Clean(cwd))
	if err != nil {
		return fmt.Errorf("could not check %s's access to %s: %w", c.user.Name, cwd, err)
	}
	if a < accounts.Write {
		return errors.New(forbidden(a, cwd, "folder").Message)
	}
	return nil
}

func (h *serverHost) audit(ctx context.Context, action, target, detail string) {
	actor := h.actor
	if h.owner != "" {
		actor += " as " + h.owner
	}
	if err := h.s.accounts.Audit(ctx, actor, action, target, detail); err != nil {
		h.s.log.Error("audit", "action", action, "err", err)
	}
}

// serverAttachment implements session.Attachment over a sessState.
type serverAttachment struct {
	h    *serverHost
	st   *sessState
	stop func()
}

func (a *serverAttachment) ID() string { return a.st.id }

func (a *serverAttachment) Live(ctx context.Context) (*session.Live, error) {
	if err := a.h.mayWrite(ctx, a.st.id); err != nil {
		return nil, err
	}
	st := a.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.deleted {
		return nil, fmt.Errorf("session %s: %w", st.id, session.ErrNotFound)
	}
	if a.h.s.base.Err() != nil {
		return nil, errStopping
	}
	return a.h.s.ensureLive(ctx, st)
}

// Prompt queues the turn as POST /api/sessions/{id}/messages does. A
// bridge with an owner acts as that account, so its chats' turns count
// against the owner's limits (serve.user_max_concurrent_turns, the daily
// budget) as the owner's web prompts do; without one there is no user
// to count, as for the server token.
func (a *serverAttachment) Prompt(ctx context.Context, text string, opts session.TurnOptions) (bool, error) {
	s, turn := a.h.s, queuedTurn{text: text, opts: opts}
	if err := a.h.mayWrite(ctx, a.st.id); err != nil {
		return false, err
	}
	if e := s.admitUserTurn(ctx, a.h.owner, a.st.id, &turn); e != nil {
		return false, errors.New(e.Message)
	}
	queued, _, err := s.enqueue(ctx, a.st, turn)
	if err != nil {
		s.turnRefused(turn)
		return false, err
	}
	a.h.audit(context.WithoutCancel(ctx), "prompt", a.st.id, fmt.Sprintf("chars=%d", len([]rune(text))))
	return queued, nil
}

func (a *serverAttachment) Interrupt(ctx context.Context) bool {
	if a.h.mayWrite(ctx, a.st.id) != nil {
		return false
	}
	if a.h.s.opts.Turns != nil {
		was, _ := a.h.s.interruptDurable(ctx, a.st)
		return was
	}
	was, _ := a.st.interrupt()
	return was
}

// Reply answers as POST /api/sessions/{id}/permissions/{request_id} does.
func (a *serverAttachment) Reply(ctx context.Context, requestID string, ans permission.Answer) error {
	s := a.h.s
	if err := a.h.mayWrite(ctx, a.st.id); err != nil {
		return err
	}
	var err error
	if s.opts.Turns != nil {
		err = s.answerDurable(ctx, a.st.id, requestID, ans)
	} else if l := s.liveSession(a.st.id); l != nil {
		err = l.Reply(requestID, ans)
	} else {
		err = fmt.Errorf("reply to %s: %w", requestID, permission.ErrUnknownRequest)
	}
	switch {
	case err == nil:
		s.answered.add(requestID)
	case errors.Is(err, permission.ErrUnknownRequest) && s.answered.has(requestID):
		err = fmt.Errorf("reply to %s: %w", requestID, permission.ErrAlreadyAnswered)
	}
	return err
}

// Busy: a turn runs here, or (durable turns) waits or runs on any replica.
func (a *serverAttachment) Busy() bool {
	sn := a.st.snapshot()
	if sn.running || len(sn.queued) > 0 {
		return true
	}
	if t := a.h.s.opts.Turns; t != nil {
		ctx, cancel := context.WithTimeout(a.h.s.base, 5*time.Second)
		defer cancel()
		ids, err := t.Pending(ctx, a.st.id)
		return err == nil && len(ids) > 0
	}
	return false
}

// Detach stops the events; the session stays the server's (closed when
// idle, or at shutdown).
func (a *serverAttachment) Detach(string) { a.stop() }
