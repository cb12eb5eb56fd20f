package bridge

import (
	"context"
	"errors"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// Records is what the bridge keeps in the store: its chats' bindings and
// the platform update ids it took (store.Bridges, which app.App.Store
// implements). This file is the bridge's one use of the store contract:
// bindings are the bridge's own records, not sessions, which it reads
// through the session layer like every front end.
type Records interface {
	PutBinding(ctx context.Context, b store.BridgeBinding) error
	Binding(ctx context.Context, platform, chat string) (store.BridgeBinding, error)
	DeleteBinding(ctx context.Context, platform, chat string) error
	TakeUpdate(ctx context.Context, platform, updateID string) (bool, error)
	PruneUpdates(ctx context.Context, before time.Time) (int, error)
}

// binding is a chat's binding as the bridge uses it.
type binding struct {
	SessionID, Cwd, Model, Mode string
}

// loadBinding returns the chat's binding; ok is false when it has none.
func (b *Bridge) loadBinding(ctx context.Context, chat Chat) (binding, bool, error) {
	r, err := b.opts.Records.Binding(ctx, b.plat.Name(), chat.Key())
	if errors.Is(err, store.ErrNotFound) {
		return binding{}, false, nil
	}
	if err != nil {
		return binding{}, false, err
	}
	return binding{SessionID: r.SessionID, Cwd: r.Cwd, Model: r.Model, Mode: r.Mode}, true, nil
}

// saveBinding stores the chat's binding.
func (b *Bridge) saveBinding(ctx context.Context, chat Chat, bd binding) error {
	return b.opts.Records.PutBinding(ctx, store.BridgeBinding{Platform: b.plat.Name(), Chat: chat.Key(),
		SessionID: bd.SessionID, Cwd: bd.Cwd, Model: bd.Model, Mode: bd.Mode})
}

// takeUpdate records the update id; false: it was processed before.
func (b *Bridge) takeUpdate(ctx context.Context, id string) (bool, error) {
	return b.opts.Records.TakeUpdate(ctx, b.plat.Name(), id)
}

// pruneUpdates forgets update ids older than any platform redelivers.
func (b *Bridge) pruneUpdates(ctx context.Context) {
	if _, err := b.opts.Records.PruneUpdates(ctx, b.now().Add(-updateMemory)); err != nil {
		b.logf("%v", err)
	}
}

// updateMemory is how long a taken update id is remembered: Telegram
// keeps an unconfirmed update 24 hours, Slack and Discord retry for
// minutes.
const updateMemory = 48 * time.Hour
