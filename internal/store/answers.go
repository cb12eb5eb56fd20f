package store

import (
	"context"
	"errors"
)

// ErrAnswered: a permission question already has its answer (the first
// one won; a later one is stale).
var ErrAnswered = errors.New("permission question already answered")

// Answers carry permission answers between `tandem serve` replicas: the
// replica running a turn opens each question it asks; whichever replica the
// user reached stores the answer, first one only; the running replica reads
// it back. One answer per question, exactly once, whoever answers.
type Answers interface {
	// OpenQuestion records that a turn of the session waits for an answer
	// to requestID (again: no change).
	OpenQuestion(ctx context.Context, sessionID, requestID string) error
	// AnswerQuestion stores answer as the question's, if it has none yet:
	// ErrAnswered if it has, ErrNotFound if no such question is open.
	AnswerQuestion(ctx context.Context, sessionID, requestID string, answer []byte) error
	// QuestionAnswer returns the question's answer, nil while it has none
	// (ErrNotFound if no such question was opened).
	QuestionAnswer(ctx context.Context, sessionID, requestID string) ([]byte, error)
}
