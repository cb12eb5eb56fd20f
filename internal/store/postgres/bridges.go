package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// PutBinding stores b, replacing the chat's earlier binding.
func (s *Store) PutBinding(ctx context.Context, b store.BridgeBinding) error {
	if b.Platform == "" || b.Chat == "" || b.SessionID == "" {
		return fmt.Errorf("bind chat %q of %q: platform, chat and session are all needed", b.Chat, b.Platform)
	}
	if b.UpdatedAt.IsZero() {
		b.UpdatedAt = s.nowUTC()
	}
	_, err := s.pool.Exec(ctx, bridgeBindingPutSQL, b.Platform, b.Chat, b.SessionID, b.Cwd, b.Model, b.Mode, backend.Nanos(b.UpdatedAt))
	if err != nil {
		return fmt.Errorf("bind %s chat %s to session %s: %w", b.Platform, b.Chat, b.SessionID, err)
	}
	return nil
}

// Binding returns the chat's binding (store.ErrNotFound when none).
func (s *Store) Binding(ctx context.Context, platform, chat string) (store.BridgeBinding, error) {
	var b store.BridgeBinding
	var updated int64
	err := s.pool.QueryRow(ctx, bridgeBindingGetSQL, platform, chat).
		Scan(&b.Platform, &b.Chat, &b.SessionID, &b.Cwd, &b.Model, &b.Mode, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.BridgeBinding{}, fmt.Errorf("read the binding of %s chat %s: %w", platform, chat, err)
	}
	b.UpdatedAt = backend.FromNanos(updated)
	return b, nil
}

// DeleteBinding unbinds a chat.
func (s *Store) DeleteBinding(ctx context.Context, platform, chat string) error {
	if _, err := s.pool.Exec(ctx, bridgeBindingDeleteSQL, platform, chat); err != nil {
		return fmt.Errorf("unbind %s chat %s: %w", platform, chat, err)
	}
	return nil
}

// TakeUpdate records the update id and reports whether this call took it
// (the insert's conflict clause waits for a concurrent insert of the same
// id, so exactly one caller sees a row inserted).
func (s *Store) TakeUpdate(ctx context.Context, platform, updateID string) (bool, error) {
	if platform == "" || updateID == "" {
		return false, fmt.Errorf("take update %q of %q: platform and update id are both needed", updateID, platform)
	}
	tag, err := s.pool.Exec(ctx, bridgeUpdateTakeSQL, platform, updateID, backend.Nanos(s.nowUTC()))
	if err != nil {
		return false, fmt.Errorf("record %s update %s: %w", platform, updateID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// PruneUpdates forgets the update ids taken before t.
func (s *Store) PruneUpdates(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, bridgeUpdatesPruneSQL, backend.Nanos(before))
	if err != nil {
		return 0, fmt.Errorf("prune the bridges' update ids: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
