package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store/backend"
)

//go:embed queries/user_turn_admit.sql
var userTurnAdmitSQL string

//go:embed queries/user_turn_end.sql
var userTurnEndSQL string

//go:embed queries/user_turns_before.sql
var userTurnsBeforeSQL string

// AdmitTurn records the turn while the user has fewer than max: one
// INSERT ... WHERE count < max, run under the write lock.
func (s *Store) AdmitTurn(ctx context.Context, userID, turnID string, max int) (bool, error) {
	var ok bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, userTurnAdmitSQL, userID, turnID, backend.Nanos(s.nowUTC()), max)
		if err != nil {
			return missingRef(err)
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("admit a turn of user %s: %w", userID, err)
	}
	return ok, nil
}

// EndTurn forgets an admitted turn.
func (s *Store) EndTurn(ctx context.Context, turnID string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, userTurnEndSQL, turnID)
		return err
	})
	if err != nil {
		return fmt.Errorf("end turn %s of its user: %w", turnID, err)
	}
	return nil
}

// AdmittedTurns lists the turns admitted before before.
func (s *Store) AdmittedTurns(ctx context.Context, before time.Time) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, userTurnsBeforeSQL, backend.Nanos(before))
	if err != nil {
		return nil, fmt.Errorf("list the users' turns: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list the users' turns: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
