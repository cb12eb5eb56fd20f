package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store"
)

//go:embed queries/answer_open.sql
var answerOpenSQL string

//go:embed queries/answer_put.sql
var answerPutSQL string

//go:embed queries/answer_get.sql
var answerGetSQL string

// OpenQuestion records an open permission question of the session.
func (s *Store) OpenQuestion(ctx context.Context, sessionID, requestID string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := sessionExists(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, answerOpenSQL, sessionID, requestID)
		return err
	})
	if err != nil {
		return fmt.Errorf("open permission question %s: %w", requestID, err)
	}
	return nil
}

// AnswerQuestion stores the question's first answer.
func (s *Store) AnswerQuestion(ctx context.Context, sessionID, requestID string, answer []byte) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, answerPutSQL, string(answer), sessionID, requestID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var prev sql.NullString
		err = tx.QueryRowContext(ctx, answerGetSQL, sessionID, requestID).Scan(&prev)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		return store.ErrAnswered
	})
	if err != nil {
		return fmt.Errorf("answer permission question %s: %w", requestID, err)
	}
	return nil
}

// QuestionAnswer returns the question's answer (nil: none yet).
func (s *Store) QuestionAnswer(ctx context.Context, sessionID, requestID string) ([]byte, error) {
	var a sql.NullString
	err := s.db.QueryRowContext(ctx, answerGetSQL, sessionID, requestID).Scan(&a)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("permission question %s: %w", requestID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read the answer to permission question %s: %w", requestID, err)
	}
	if !a.Valid {
		return nil, nil
	}
	return []byte(a.String), nil
}
