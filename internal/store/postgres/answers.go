package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

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
	if _, err := s.pool.Exec(ctx, answerOpenSQL, sessionID, requestID); err != nil {
		return fmt.Errorf("open permission question %s: %w", requestID, missingRef(err))
	}
	return nil
}

// AnswerQuestion stores the question's first answer: one UPDATE of the
// row while it has none, so two replicas answering at once cannot both win.
func (s *Store) AnswerQuestion(ctx context.Context, sessionID, requestID string, answer []byte) error {
	tag, err := s.pool.Exec(ctx, answerPutSQL, sessionID, requestID, string(answer))
	if err != nil {
		return fmt.Errorf("answer permission question %s: %w", requestID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	if _, err := s.QuestionAnswer(ctx, sessionID, requestID); err != nil {
		return fmt.Errorf("answer permission question %s: %w", requestID, err)
	}
	return fmt.Errorf("answer permission question %s: %w", requestID, store.ErrAnswered)
}

// QuestionAnswer returns the question's answer (nil: none yet).
func (s *Store) QuestionAnswer(ctx context.Context, sessionID, requestID string) ([]byte, error) {
	var a *string
	err := s.pool.QueryRow(ctx, answerGetSQL, sessionID, requestID).Scan(&a)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("permission question %s: %w", requestID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read the answer to permission question %s: %w", requestID, err)
	}
	if a == nil {
		return nil, nil
	}
	return []byte(*a), nil
}
