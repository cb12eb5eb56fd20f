package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

//go:embed queries/user_turn_lock.sql
var userTurnLockSQL string

//go:embed queries/user_turn_admit.sql
var userTurnAdmitSQL string

//go:embed queries/user_turn_end.sql
var userTurnEndSQL string

//go:embed queries/user_turns_before.sql
var userTurnsBeforeSQL string

// AdmitTurn records the turn while the user has fewer than max: the
// user's row is locked first, so replicas admitting at once count in
// turn (each statement of the transaction sees what the other committed).
func (s *Store) AdmitTurn(ctx context.Context, userID, turnID string, max int) (bool, error) {
	var ok bool
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, userTurnLockSQL, userID).Scan(&id); errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		} else if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, userTurnAdmitSQL, userID, turnID, backend.Nanos(s.nowUTC()), max)
		ok = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("admit a turn of user %s: %w", userID, err)
	}
	return ok, nil
}

// EndTurn forgets an admitted turn.
func (s *Store) EndTurn(ctx context.Context, turnID string) error {
	if _, err := s.pool.Exec(ctx, userTurnEndSQL, turnID); err != nil {
		return fmt.Errorf("end turn %s of its user: %w", turnID, err)
	}
	return nil
}

// AdmittedTurns lists the turns admitted before before.
func (s *Store) AdmittedTurns(ctx context.Context, before time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, userTurnsBeforeSQL, backend.Nanos(before))
	if err != nil {
		return nil, fmt.Errorf("list the users' turns: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the users' turns: %w", err)
	}
	return ids, nil
}
