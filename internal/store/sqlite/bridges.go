package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// PutBinding stores b, replacing the chat's earlier binding.
func (s *Store) PutBinding(ctx context.Context, b store.BridgeBinding) error {
	if b.Platform == "" || b.Chat == "" || b.SessionID == "" {
		return fmt.Errorf("bind chat %q of %q: platform, chat and session are all needed", b.Chat, b.Platform)
	}
	if b.UpdatedAt.IsZero() {
		b.UpdatedAt = s.nowUTC()
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, bridgeBindingPutSQL, b.Platform, b.Chat, b.SessionID, b.Cwd, b.Model, b.Mode, nanos(b.UpdatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("bind %s chat %s to session %s: %w", b.Platform, b.Chat, b.SessionID, err)
	}
	return nil
}

// Binding returns the chat's binding (store.ErrNotFound when none).
func (s *Store) Binding(ctx context.Context, platform, chat string) (store.BridgeBinding, error) {
	var b store.BridgeBinding
	var updated int64
	err := s.db.QueryRowContext(ctx, bridgeBindingGetSQL, platform, chat).
		Scan(&b.Platform, &b.Chat, &b.SessionID, &b.Cwd, &b.Model, &b.Mode, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.BridgeBinding{}, fmt.Errorf("read the binding of %s chat %s: %w", platform, chat, err)
	}
	b.UpdatedAt = fromNanos(updated)
	return b, nil
}

// DeleteBinding unbinds a chat.
func (s *Store) DeleteBinding(ctx context.Context, platform, chat string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, bridgeBindingDeleteSQL, platform, chat)
		return err
	})
	if err != nil {
		return fmt.Errorf("unbind %s chat %s: %w", platform, chat, err)
	}
	return nil
}

// TakeUpdate records the update id and reports whether this call took it.
func (s *Store) TakeUpdate(ctx context.Context, platform, updateID string) (bool, error) {
	if platform == "" || updateID == "" {
		return false, fmt.Errorf("take update %q of %q: platform and update id are both needed", updateID, platform)
	}
	var took bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, bridgeUpdateTakeSQL, platform, updateID, nanos(s.nowUTC()))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		took = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("record %s update %s: %w", platform, updateID, err)
	}
	return took, nil
}

// PruneUpdates forgets the update ids taken before t.
func (s *Store) PruneUpdates(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, bridgeUpdatesPruneSQL, nanos(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune the bridges' update ids: %w", err)
	}
	return int(n), nil
}
