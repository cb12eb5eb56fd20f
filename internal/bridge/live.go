package bridge

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
)

// state returns the chat's state, made on first use.
func (b *Bridge) state(chat Chat) *chatState {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chats[chat.Key()]
	if c == nil {
		c = &chatState{chat: chat}
		b.chats[chat.Key()] = c
	}
	return c
}

// open attaches the chat to a session through the host (req.ID to resume
// one, else a new one in req.Cwd), binds the chat to it and detaches the
// chat's earlier one.
func (b *Bridge) open(ctx context.Context, c *chatState, req session.OpenRequest) (session.Summary, error) {
	req.FlagRules = b.opts.FlagRules
	// The sink reads c.out under the lock each time: a turn's renderer
	// comes and goes, the session stays.
	att, err := b.host.Attach(ctx, req, event.SinkFunc(func(e event.Event) { b.deliver(c, e) }))
	if err != nil {
		return session.Summary{}, err
	}
	live, err := att.Live(ctx)
	if err != nil {
		att.Detach("other")
		return session.Summary{}, err
	}
	info := live.Info()
	bd := binding{SessionID: info.ID, Cwd: info.Cwd, Model: info.Model, Mode: info.Mode}
	if err := b.saveBinding(ctx, c.chat, bd); err != nil {
		att.Detach("other")
		return session.Summary{}, err
	}
	b.mu.Lock()
	old := c.att
	c.att, c.bd = att, bd
	// A turn of the earlier session still shown ends here: its done
	// will not come.
	out := c.out
	c.out = nil
	b.mu.Unlock()
	b.unfollow(out)
	if old != nil {
		old.Detach("clear")
	}
	return info, nil
}

// attached returns the chat's session, attaching to the bound one when
// this process has not yet; nil (and no error) when the chat is not
// bound.
func (b *Bridge) attached(ctx context.Context, c *chatState) (session.Attachment, error) {
	b.mu.Lock()
	a := c.att
	b.mu.Unlock()
	if a != nil {
		return a, nil
	}
	bd, ok, err := b.loadBinding(ctx, c.chat)
	if err != nil || !ok {
		return nil, err
	}
	if !b.inFolders(bd.Cwd) {
		return nil, fmt.Errorf("this chat's session is in %s, which is no longer among the bridge's folders: /new DIR starts another", bd.Cwd)
	}
	if _, err := b.open(ctx, c, session.OpenRequest{ID: bd.SessionID, Model: bd.Model, Mode: bd.Mode}); err != nil {
		return nil, fmt.Errorf("resume this chat's session %s: %w", bd.SessionID, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return c.att, nil
}

// live returns the chat's session handle (nil when the chat is not
// bound).
func (b *Bridge) live(ctx context.Context, c *chatState) (*session.Live, error) {
	a, err := b.attached(ctx, c)
	if err != nil || a == nil {
		return nil, err
	}
	return a.Live(ctx)
}

// deliver takes one of the session's events, whichever front end's turn
// emitted it: a turn's start makes the chat's renderer, its done ends
// it. It runs inside the emitter (or the server's hub), so it only
// queues.
func (b *Bridge) deliver(c *chatState, e event.Event) {
	top := e.ParentToolUseID == ""
	b.mu.Lock()
	if c.att != nil && e.SessionID != c.att.ID() {
		b.mu.Unlock()
		return // the chat's earlier session, detaching
	}
	out := c.out
	if out == nil && top && startsTurn(e) && !b.closing {
		out = newRenderer(b, c.chat, b.origin(c.chat), c.rendered)
		c.out, c.rendered = out, out.finished
		b.wg.Add(1)
		go out.loop(context.Background())
	}
	if out != nil && top && e.Type == event.Done {
		c.out = nil
	}
	b.mu.Unlock()
	if out == nil {
		return
	}
	out.push(e)
	if top && e.Type == event.Done {
		go func() {
			defer b.wg.Done()
			out.finish()
		}()
	}
}

// unfollow ends the showing of a turn the chat no longer follows (out
// may be nil: none was shown): what came of it is said, and that the turn
// goes on without the chat.
func (b *Bridge) unfollow(out *renderer) {
	if out == nil {
		return
	}
	go func() {
		defer b.wg.Done()
		out.finishDetached()
	}()
}

// startsTurn: e is a turn's first event (or, when the chat attached
// mid-turn, the first one it shows).
func startsTurn(e event.Event) bool {
	switch e.Type {
	case event.Status:
		return e.Subtype == event.SubtypeUserMessage || e.Subtype == "turn_moved"
	case event.Text, event.ToolUse, event.PermissionRequest:
		return true
	}
	return false
}

// origin names the chat as the origin of the turns it starts.
func (b *Bridge) origin(chat Chat) string { return b.plat.Name() + ":" + chat.Key() }
