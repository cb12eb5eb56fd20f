package store

import (
	"context"
	"time"
)

// BridgeBinding is one chat (or thread) of a chat platform bound to a
// session by a chat bridge (internal/bridge): where its prompts go and
// with which model and mode.
type BridgeBinding struct {
	Platform  string // "telegram", "slack", "discord", "feishu"
	Chat      string // the platform's chat id, with "/thread" for a thread
	SessionID string
	Cwd       string
	Model     string // "provider/model" the binding chose; empty: the session's
	Mode      string // the permission mode the binding chose; empty: the session's
	UpdatedAt time.Time
}

// Bridges keeps what the chat bridges remember across restarts: which
// chat is bound to which session, and which platform updates were taken,
// so an update a platform delivers again after a reconnect is not run
// twice.
type Bridges interface {
	// PutBinding stores b, replacing the chat's earlier binding.
	PutBinding(ctx context.Context, b BridgeBinding) error
	// Binding returns the chat's binding; ErrNotFound when it has none.
	Binding(ctx context.Context, platform, chat string) (BridgeBinding, error)
	// DeleteBinding unbinds a chat (no error when it was not bound).
	DeleteBinding(ctx context.Context, platform, chat string) error
	// TakeUpdate records that the platform's update id was taken and
	// reports whether this call took it: false when it was taken before
	// (by this process or another), so it must not be processed again.
	TakeUpdate(ctx context.Context, platform, updateID string) (bool, error)
	// PruneUpdates forgets the update ids taken before t (platforms never
	// deliver an update again after a day) and reports how many.
	PruneUpdates(ctx context.Context, before time.Time) (int, error)
}
