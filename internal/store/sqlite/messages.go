package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// AppendMessage stores m at the end of the session's conversation (see
// store.Messages).
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m message.Message) (message.Message, error) {
	return s.appendMessage(ctx, sessionID, m, 0)
}

// appendMessage also raises the session's last_seq to lastSeq in the same
// transaction, so the event numbering survives a killed process as well as
// the messages do.
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
		return message.Message{}, fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	a := backend.ForAppend(m)
	u := a.Usage
	var usageCols [5]any // NULLs when the message has no usage
	if m.Usage != nil {
		usageCols = [5]any{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ReasoningTokens}
	}
	cost := orNull(m.CostUSD)
	compaction, err := backend.EncodeCompaction(m.Compaction)
	if err != nil {
		return message.Message{}, fmt.Errorf("append message to session %s: %w", sessionID, err)
	}

	st, err := s.stmtsFor(ctx, messageTotalsSQL, messageInsertSQL)
	if err == nil {
		err = s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.StmtContext(ctx, st[0]).ExecContext(ctx,
				u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ReasoningTokens,
				cost, a.UnknownCost, nanos(now), a.Title, lastSeq, sessionID)
			if err != nil {
				return err
			}
			if err := mustAffect(res); err != nil {
				return err
			}
			_, err = tx.StmtContext(ctx, st[1]).ExecContext(ctx,
				m.ID, sessionID, sessionID, string(m.Role), content, m.Model,
				usageCols[0], usageCols[1], usageCols[2], usageCols[3], usageCols[4],
				cost, nanos(m.CreatedAt), string(m.Kind), compaction, m.ProviderID)
			return err
		})
	}
	if err != nil {
		return message.Message{}, fmt.Errorf("append message to session %s: %w", sessionID, err)
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
	rows, err := s.db.QueryContext(ctx, messagesListSQL, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []message.Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// Tell "no messages yet" from "no such session".
		var one int
		err := s.db.QueryRowContext(ctx, sessionExistsSQL, sessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, store.ErrNotFound
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanMessage(rows *sql.Rows) (message.Message, error) {
	var (
		m                  message.Message
		role, content      string
		in, out, cr, cc, r sql.NullInt64
		cost               sql.NullFloat64
		created            int64
		kind               string
		compaction         sql.NullString
	)
	if err := rows.Scan(&m.ID, &role, &content, &m.Model, &in, &out, &cr, &cc, &r, &cost, &created, &kind, &compaction, &m.ProviderID); err != nil {
		return m, err
	}
	m.Kind = message.Kind(kind)
	if compaction.Valid {
		c, err := backend.DecodeCompaction(compaction.String)
		if err != nil {
			return m, fmt.Errorf("message %s: %w", m.ID, err)
		}
		m.Compaction = c
	}
	m.Role = message.Role(role)
	blocks, err := backend.DecodeContent(content)
	if err != nil {
		return m, fmt.Errorf("message %s: %w", m.ID, err)
	}
	m.Content = blocks
	if in.Valid {
		m.Usage = &message.Usage{InputTokens: in.Int64, OutputTokens: out.Int64,
			CacheReadTokens: cr.Int64, CacheCreationTokens: cc.Int64, ReasoningTokens: r.Int64}
	}
	if cost.Valid {
		c := cost.Float64
		m.CostUSD = &c
	}
	m.CreatedAt = fromNanos(created)
	return m, nil
}
