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

// open opens a session for the chat (req.ID to resume one, else a new one
// in req.Cwd), binds the chat to it and closes the chat's earlier one.
func (b *Bridge) open(ctx context.Context, c *chatState, req session.OpenRequest) (*session.Live, error) {
	// The sink reads c.out under the lock each time: a turn's renderer
	// comes and goes, the session stays.
	req.Sinks = []event.Sink{event.SinkFunc(func(e event.Event) { b.deliver(c, e) })}
	req.AnswerByReply, req.FlagRules = true, b.opts.FlagRules
	live, err := b.opts.Manager.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	info := live.Info()
	bd := binding{SessionID: info.ID, Cwd: info.Cwd, Model: info.Model, Mode: info.Mode}
	if err := b.saveBinding(ctx, c.chat, bd); err != nil {
		live.CloseFor("other")
		return nil, err
	}
	b.mu.Lock()
	old := c.live
	c.live, c.bd = live, bd
	b.mu.Unlock()
	if old != nil {
		old.CloseFor("clear")
	}
	return live, nil
}

// live returns the chat's session, opening the bound one when this
// process has not yet; nil (and no error) when the chat is not bound.
func (b *Bridge) live(ctx context.Context, c *chatState) (*session.Live, error) {
	b.mu.Lock()
	l := c.live
	b.mu.Unlock()
	if l != nil {
		return l, nil
	}
	bd, ok, err := b.loadBinding(ctx, c.chat)
	if err != nil || !ok {
		return nil, err
	}
	if !b.inFolders(bd.Cwd) {
		return nil, fmt.Errorf("this chat's session is in %s, which is no longer among the bridge's folders: /new DIR starts another", bd.Cwd)
	}
	l, err = b.open(ctx, c, session.OpenRequest{ID: bd.SessionID, Model: bd.Model, Mode: bd.Mode})
	if err != nil {
		return nil, fmt.Errorf("resume this chat's session %s: %w", bd.SessionID, err)
	}
	return l, nil
}

// deliver passes one of the session's events to the running turn's
// renderer, if any.
func (b *Bridge) deliver(c *chatState, e event.Event) {
	b.mu.Lock()
	out := c.out
	b.mu.Unlock()
	if out != nil {
		out.push(e)
	}
}
