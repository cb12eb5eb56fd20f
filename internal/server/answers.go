package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/store"
)

// Permission answers across replicas (docs/api.md, Replicas): with durable
// turns, a question raised by a turn on one replica may be answered on
// any. Every answer goes through the store's Answers (store.Answers), whose
// one conditional write makes the first answer win exactly once; the
// replica running the turn opens each question there and relays the
// stored answer to its session.

// answerPoll is how often a running turn's open questions are checked
// for an answer given on another replica.
const answerPoll = 250 * time.Millisecond

func (s *Server) answers() store.Answers { return s.mgr.Store() }

// relayAnswers runs beside a durable turn: it opens the session's new
// questions in the store and hands each stored answer to the session.
func (s *Server) relayAnswers(ctx context.Context, id string, l *session.Live) {
	opened := map[string]bool{}
	tick := time.NewTicker(answerPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, q := range l.Pending() {
			if !opened[q.RequestID] {
				if err := s.answers().OpenQuestion(ctx, id, q.RequestID); err != nil {
					s.log.Warn("open a permission question for other replicas", "session", id, "request", q.RequestID, "err", err)
					continue
				}
				opened[q.RequestID] = true
			}
			raw, err := s.answers().QuestionAnswer(ctx, id, q.RequestID)
			if err != nil || raw == nil {
				continue
			}
			var ans permission.Answer
			if err := json.Unmarshal(raw, &ans); err != nil {
				s.log.Error("a stored permission answer does not decode", "session", id, "request", q.RequestID, "err", err)
				continue
			}
			_ = l.Reply(q.RequestID, ans) // answered here meanwhile: the same answer
		}
	}
}

// answerDurable stores ans as the answer to the session's question: the
// first answer on any replica wins (ErrAlreadyAnswered for the others);
// a question this replica's turn asks gets it at once.
func (s *Server) answerDurable(ctx context.Context, sid, requestID string, ans permission.Answer) error {
	raw, err := json.Marshal(ans)
	if err != nil {
		return fmt.Errorf("encode the answer: %w", err)
	}
	l := s.liveSession(sid)
	// The running replica opens a question within answerPoll of asking
	// it; an answer quicker than that waits for it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if l != nil && isPending(l, requestID) {
			if err := s.answers().OpenQuestion(ctx, sid, requestID); err != nil {
				return err
			}
		}
		err = s.answers().AnswerQuestion(ctx, sid, requestID, raw)
		if !errors.Is(err, store.ErrNotFound) || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(answerPoll):
		}
	}
	switch {
	case errors.Is(err, store.ErrAnswered):
		return fmt.Errorf("reply to %s: %w", requestID, permission.ErrAlreadyAnswered)
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("reply to %s: %w", requestID, permission.ErrUnknownRequest)
	case err != nil:
		return err
	}
	if l != nil && isPending(l, requestID) {
		_ = l.Reply(requestID, ans) // else the running replica relays it
	}
	return nil
}

func isPending(l *session.Live, requestID string) bool {
	for _, q := range l.Pending() {
		if q.RequestID == requestID {
			return true
		}
	}
	return false
}
