package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// AppendMessage stores m at the end of the session's conversation, and in
// the same transaction adds its usage and cost to the session's totals,
// counts it, bumps updated_at and titles an untitled session from a user
// message (as the SQLite backend).
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m message.Message) (message.Message, error) {
	out, err := s.appendMessage(ctx, sessionID, m, 0)
	if err != nil {
		return message.Message{}, fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	return out, nil
}

// retryWindow is how long AppendWithSeq keeps trying a write whose
// connection failed (a server restart, a fail-over): the turn keeps its
// step when the database comes back within it.
const retryWindow = 10 * time.Second

// AppendWithSeq stores m like AppendMessage and raises the session's
// last_seq to lastSeq (0 leaves it) in the same transaction: how a turn's
// messages are written. A lost connection is retried for 10 s; the
// message's id makes the retry safe (a commit whose answer was lost is
// found, not stored twice). A failure names what was not stored.
func (s *Store) AppendWithSeq(ctx context.Context, sessionID string, m message.Message, lastSeq int64) (message.Message, error) {
	if m.ID == "" {
		m.ID = backend.NewID("msg_") // fixed before the first try: the retry's key
	}
	deadline := time.Now().Add(retryWindow)
	wait := 100 * time.Millisecond
	retried := false
	for {
		out, err := s.appendMessage(ctx, sessionID, m, lastSeq)
		if err != nil && retried && isDuplicateID(err) {
			return s.storedMessage(ctx, sessionID, m)
		}
		if err == nil || !connectionLost(err) || !time.Now().Before(deadline) {
			if err != nil {
				return out, fmt.Errorf("session %s: PostgreSQL at %s could not store %s: %w (check that the server is running and reachable; the turn's earlier steps are stored)",
					sessionID, s.where, backend.Describe(m), err)
			}
			return out, nil
		}
		retried = true
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("session %s: could not store %s: %w", sessionID, backend.Describe(m), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// connectionLost reports a failure of the connection rather than of the
// statement: worth retrying on another pooled connection.
func connectionLost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now, connection_exception class
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code[:2] == "08"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ce *pgconn.ConnectError
	var ne interface{ Timeout() bool }
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isDuplicateID is the message id's primary key refusing a second copy.
func isDuplicateID(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "messages_pkey"
}

// storedMessage reads back a message an earlier try committed.
func (s *Store) storedMessage(ctx context.Context, sessionID string, m message.Message) (message.Message, error) {
	rows, err := s.pool.Query(ctx, storedMessageSQL, sessionID, m.ID)
	if err != nil {
		return message.Message{}, err
	}
	msgs, err := collectMessages(rows)
	if err != nil || len(msgs) != 1 {
		return message.Message{}, fmt.Errorf("read back message %s of session %s: %v", m.ID, sessionID, err)
	}
	return msgs[0], nil
}

// appendMessage runs the two statements as one batch: one round trip, one
// implicit transaction. The UPDATE locks the session's row, so a concurrent
// append to the same session waits for this one to commit, and the INSERT
// (a statement of its own, with a fresh snapshot) then numbers after it.
func (s *Store) appendMessage(ctx context.Context, sessionID string, m message.Message, lastSeq int64) (message.Message, error) {
	if m.ID == "" {
		m.ID = backend.NewID("msg_")
	}
	now := s.nowUTC()
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	m.CreatedAt = m.CreatedAt.UTC().Round(0)
	content, err := backend.EncodeContent(m.Content)
	if err != nil {
		return message.Message{}, err
	}
	compaction, err := backend.EncodeCompaction(m.Compaction)
	if err != nil {
		return message.Message{}, err
	}
	a := backend.ForAppend(m)
	u := a.Usage
	var uc [5]*int64 // NULLs when the message has no usage
	if m.Usage != nil {
		uc = [5]*int64{&u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheCreationTokens, &u.ReasoningTokens}
	}
	b := &pgx.Batch{}
	b.Queue(appendTotalsSQL, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ReasoningTokens,
		m.CostUSD, a.UnknownCost, backend.Nanos(now), a.Title, lastSeq, sessionID)
	b.Queue(appendInsertSQL, m.ID, sessionID, string(m.Role), content, m.Model,
		uc[0], uc[1], uc[2], uc[3], uc[4], m.CostUSD, backend.Nanos(m.CreatedAt), string(m.Kind), compaction, m.ProviderID)
	br := s.pool.SendBatch(ctx, b)
	tag, err := br.Exec()
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrNotFound
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if isCode(err, "23503") { // foreign_key_violation: the session went away
			err = fmt.Errorf("%w (%v)", store.ErrNotFound, err)
		}
		return message.Message{}, err
	}
	return m, nil
}

// Messages returns the session's conversation, oldest first.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]message.Message, error) {
	msgs, err := s.messages(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	return msgs, nil
}

func (s *Store) messages(ctx context.Context, sessionID string) ([]message.Message, error) {
	rows, err := s.pool.Query(ctx, messagesSQL, sessionID)
	if err != nil {
		return nil, err
	}
	out, err := collectMessages(rows)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// Tell "no messages yet" from "no such session".
		if err := sessionExists(ctx, s.pool, sessionID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, store.ErrNotFound
			}
			return nil, err
		}
	}
	return out, nil
}

func collectMessages(rows pgx.Rows) ([]message.Message, error) {
	defer rows.Close()
	out := []message.Message{}
	for rows.Next() {
		var (
			m                   message.Message
			role, content       string
			in, out2, cr, cc, r *int64
			cost                *float64
			created             int64
			kind                string
			compaction          *string
		)
		if err := rows.Scan(&m.ID, &role, &content, &m.Model, &in, &out2, &cr, &cc, &r, &cost, &created, &kind, &compaction, &m.ProviderID); err != nil {
			return nil, err
		}
		m.Kind = message.Kind(kind)
		if compaction != nil {
			c, err := backend.DecodeCompaction(*compaction)
			if err != nil {
				return nil, fmt.Errorf("message %s: %w", m.ID, err)
			}
			m.Compaction = c
		}
		m.Role = message.Role(role)
		blocks, err := backend.DecodeContent(content)
		if err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		m.Content = blocks
		if in != nil {
			m.Usage = &message.Usage{InputTokens: *in, OutputTokens: deref(out2),
				CacheReadTokens: deref(cr), CacheCreationTokens: deref(cc), ReasoningTokens: deref(r)}
		}
		m.CostUSD = cost
		m.CreatedAt = backend.FromNanos(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// SubagentRuns returns the sub-agents that tool calls in msgs started (see
// backend.SubagentRuns).
func (s *Store) SubagentRuns(ctx context.Context, parentID string, msgs []message.Message) ([]store.SubagentRun, error) {
	return backend.SubagentRuns(ctx, s, parentID, msgs)
}
