package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/message"
)

// titleMax is the length (in characters) of a title taken from the first
// user message.
const titleMax = 80

// AppendMessage stores m at the end of the session's conversation. An empty
// ID gets a generated one ("msg_" + ULID) and a zero CreatedAt the current
// time. In the same transaction it adds m's usage and cost to the session's
// totals, counts the message, bumps updated_at and, when the session has no
// title yet, takes one from the first line of a user message's text.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m message.Message) (message.Message, error) {
	return s.appendMessage(ctx, sessionID, m, 0)
}

// appendMessage also raises the session's last_seq to lastSeq in the same
// transaction, so the event numbering survives a killed process as well as
// the messages do.
func (s *Store) appendMessage(ctx context.Context, sessionID string, m message.Message, lastSeq int64) (message.Message, error) {
	now := s.nowUTC()
	row, err := PrepareMessage(m, now)
	if err != nil {
		return message.Message{}, fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	m = row.Message
	u, usageCols, cost, content, compaction := row.Usage, row.UsageCols, row.Cost, row.Content, row.Compaction
	unknownCost, title := row.UnknownCost, row.Title

	st, err := s.stmtsFor(ctx, appendTotalsSQL, appendInsertSQL)
	if err == nil {
		err = s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.StmtContext(ctx, st[0]).ExecContext(ctx,
				u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ReasoningTokens,
				cost, unknownCost, nanos(now), title, lastSeq, sessionID)
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

// MessageRow is a message in its stored form, as every backend writes it.
type MessageRow struct {
	Message     message.Message // with its id and creation time set
	Content     string          // EncodeContent's JSON
	Compaction  any             // nil or the compaction's JSON text
	Usage       message.Usage   // zero when the message has none
	UsageCols   [5]any          // input, output, cache read, cache creation, reasoning; nils without usage
	Cost        any             // nil or the float64 cost
	UnknownCost bool            // makes the session's total cost unknown
	Title       string          // the session's title if it has none yet
}

// PrepareMessage fills in m's id ("msg_" + ULID) and creation time when
// empty and encodes it for storing.
func PrepareMessage(m message.Message, now time.Time) (MessageRow, error) {
	if m.ID == "" {
		m.ID = newID("msg_")
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	m.CreatedAt = m.CreatedAt.UTC().Round(0)
	r := MessageRow{Message: m}
	var err error
	if r.Content, err = encodeContent(m.Content); err != nil {
		return r, err
	}
	if m.Usage != nil {
		u := *m.Usage
		r.Usage = u
		r.UsageCols = [5]any{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.ReasoningTokens}
	}
	if m.CostUSD != nil {
		r.Cost = *m.CostUSD
	}
	// A message that used tokens (an assistant reply, a compaction's
	// summary call) but has no price makes the session's total unknown:
	// summing the rest would understate it.
	r.UnknownCost = (m.Role == message.Assistant || m.Kind != "") && m.Usage != nil && m.CostUSD == nil
	if m.Role == message.User && m.Kind == "" {
		r.Title = titleFrom(m.PlainText())
	}
	if r.Compaction, err = encodeCompaction(m.Compaction); err != nil {
		return r, err
	}
	return r, nil
}

// appendTotalsSQL adds one message's usage and cost to its session's totals.
const appendTotalsSQL = `UPDATE sessions SET
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_creation_tokens = cache_creation_tokens + ?,
	reasoning_tokens = reasoning_tokens + ?,
	cost_usd = cost_usd + COALESCE(?, 0),
	cost_known = cost_known AND NOT ?,
	message_count = message_count + 1,
	updated_at = max(updated_at, ?),
	title = CASE WHEN title = '' THEN ? ELSE title END,
	last_seq = max(last_seq, ?)
	WHERE id = ?`

// appendInsertSQL stores one message after the session's last.
const appendInsertSQL = `INSERT INTO messages
	(id, session_id, position, role, content, model,
	 input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
	 cost_usd, created_at, kind, compaction, provider_id)
	VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = ?),
	 ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// titleFrom is the first non-blank line of text, cut to titleMax characters.
func titleFrom(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > titleMax {
			r := []rune(line)
			line = strings.TrimSpace(string(r[:titleMax-1])) + "…"
		}
		return line
	}
	return ""
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
	rows, err := s.db.QueryContext(ctx, `SELECT id, role, content, model,
		input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
		cost_usd, created_at, kind, compaction, provider_id
		FROM messages WHERE session_id = ? ORDER BY position`, sessionID)
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
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
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
		var c message.Compaction
		if err := json.Unmarshal([]byte(compaction.String), &c); err != nil {
			return m, fmt.Errorf("message %s: compaction: %w", m.ID, err)
		}
		m.Compaction = &c
	}
	m.Role = message.Role(role)
	blocks, err := decodeContent(content)
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

// encodeCompaction is the compaction column: NULL for ordinary messages.
func encodeCompaction(c *message.Compaction) (any, error) {
	if c == nil {
		return nil, nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode compaction: %w", err)
	}
	return string(data), nil
}
