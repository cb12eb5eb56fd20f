package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// Session is one conversation and its running totals.
type Session struct {
	ID       string
	Cwd      string
	Title    string
	Model    string
	Runtime  string
	Mode     string
	ParentID string // empty for top-level sessions
	// ParentToolUseID is the parent's tool call (Agent/Task) that started
	// this sub-agent session: where its steps belong in the parent's
	// history. Empty for top-level sessions and children stored before
	// the link was kept.
	ParentToolUseID string

	CreatedAt time.Time
	UpdatedAt time.Time

	// Usage is the sum of the messages' usage.
	Usage message.Usage
	// CostUSD is the sum of the messages' costs; nil when unknown, which is
	// the case once any assistant message reported usage without a cost
	// (a model without prices): a partial sum would understate the spend.
	CostUSD      *float64
	MessageCount int
	// LastSeq is the seq of the last event emitted for the session, so that
	// the next turn's emitter continues from it and SSE clients can resume.
	LastSeq int64
	// Meta holds runtime-specific values (see Store.SetMeta).
	Meta map[string]string
}

// SessionUpdate names the fields UpdateSession changes; nil fields are kept.
type SessionUpdate struct {
	Title   *string
	Model   *string
	Runtime *string
	Mode    *string
	LastSeq *int64
}

// ListOptions filter and page ListSessions.
type ListOptions struct {
	Cwd    string // only sessions started in this folder; empty: all
	Limit  int    // 0: no limit
	Offset int
}

// sessionIDPrefix starts every generated session id.
const sessionIDPrefix = "ses_"

// minPrefix is the shortest id prefix GetSession resolves, as git does.
const minPrefix = 6

const sessionColumns = `id, cwd, title, model, runtime, mode, COALESCE(parent_id, ''), COALESCE(parent_tool_use_id, ''),
	created_at, updated_at, input_tokens, output_tokens, cache_read_tokens,
	cache_creation_tokens, reasoning_tokens, cost_usd, cost_known, message_count, last_seq,
	(SELECT json_group_object(key, value) FROM session_meta WHERE session_id = sessions.id)`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var (
		s                Session
		created, updated int64
		cost             float64
		costKnown        bool
		meta             sql.NullString
	)
	err := row.Scan(&s.ID, &s.Cwd, &s.Title, &s.Model, &s.Runtime, &s.Mode, &s.ParentID, &s.ParentToolUseID,
		&created, &updated, &s.Usage.InputTokens, &s.Usage.OutputTokens, &s.Usage.CacheReadTokens,
		&s.Usage.CacheCreationTokens, &s.Usage.ReasoningTokens, &cost, &costKnown,
		&s.MessageCount, &s.LastSeq, &meta)
	if err != nil {
		return Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = fromNanos(created), fromNanos(updated)
	if costKnown {
		s.CostUSD = &cost
	}
	s.Meta = map[string]string{}
	if meta.Valid && meta.String != "" {
		if err := json.Unmarshal([]byte(meta.String), &s.Meta); err != nil {
			return Session{}, fmt.Errorf("decode meta: %w", err)
		}
	}
	return s, nil
}

// CreateSession stores a new session. An empty ID gets a generated,
// time-sortable one ("ses_" + ULID) and zero timestamps get the current
// time. Totals, message count and cost start empty whatever sess holds.
func (s *Store) CreateSession(ctx context.Context, sess Session) (Session, error) {
	sess, err := PrepareSession(sess, s.nowUTC())
	if err != nil {
		return Session{}, err
	}
	var parent, parentToolUse any
	if sess.ParentID != "" {
		parent = sess.ParentID
	}
	if sess.ParentToolUseID != "" {
		parentToolUse = sess.ParentToolUseID
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if sess.ParentID != "" {
			if err := sessionExists(ctx, tx, sess.ParentID); err != nil {
				return fmt.Errorf("parent session: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions
			(id, cwd, title, model, runtime, mode, parent_id, parent_tool_use_id, created_at, updated_at, last_seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, sess.Cwd, sess.Title, sess.Model, sess.Runtime, sess.Mode, parent, parentToolUse,
			nanos(sess.CreatedAt), nanos(sess.UpdatedAt), sess.LastSeq)
		if err != nil {
			return err
		}
		for k, v := range sess.Meta {
			if err := putMeta(ctx, tx, sess.ID, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Session{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return sess, nil
}

// PrepareSession checks sess and fills in what CreateSession stores: a
// generated id when empty, times (now when zero; UTC, no monotonic
// reading), the cleaned cwd, empty totals and meta.
func PrepareSession(sess Session, now time.Time) (Session, error) {
	if sess.ID == "" {
		sess.ID = newID(sessionIDPrefix)
	}
	if err := CheckID("session", sess.ID); err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	if sess.ParentID != "" {
		if err := CheckID("parent session", sess.ParentID); err != nil {
			return Session{}, fmt.Errorf("create session: %w", err)
		}
	}
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	if sess.UpdatedAt.IsZero() {
		sess.UpdatedAt = sess.CreatedAt
	}
	sess.CreatedAt, sess.UpdatedAt = sess.CreatedAt.UTC().Round(0), sess.UpdatedAt.UTC().Round(0)
	if sess.Cwd != "" {
		sess.Cwd = filepath.Clean(sess.Cwd)
	}
	sess.Usage, sess.MessageCount = message.Usage{}, 0
	zero := 0.0
	sess.CostUSD = &zero
	if sess.Meta == nil {
		sess.Meta = map[string]string{}
	}
	if sess.ParentToolUseID != "" && sess.ParentID == "" {
		return Session{}, fmt.Errorf("create session: parent tool call %s without a parent session", sess.ParentToolUseID)
	}
	return sess, nil
}

func sessionExists(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return err
}

// GetSession loads a session by id, or by a unique prefix of at least six
// characters (the "ses_" start may be left out), as git resolves commits.
func (s *Store) GetSession(ctx context.Context, id string) (Session, error) {
	if id == "" {
		return Session{}, fmt.Errorf("load session: no id given: %w", ErrNotFound)
	}
	if err := CheckID("session", id); err != nil {
		return Session{}, fmt.Errorf("load session: %w", err)
	}
	sess, err := scanSession(s.db.QueryRowContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	full, err := s.resolvePrefix(ctx, id)
	if err != nil {
		return Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	sess, err = scanSession(s.db.QueryRowContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, full))
	if errors.Is(err, sql.ErrNoRows) { // deleted in between
		return Session{}, fmt.Errorf("load session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return sess, nil
}

// resolvePrefix finds the one session whose id starts with prefix (or with
// "ses_"+prefix).
func (s *Store) resolvePrefix(ctx context.Context, prefix string) (string, error) {
	bare := strings.TrimPrefix(prefix, sessionIDPrefix)
	if len(bare) < minPrefix {
		return "", fmt.Errorf("%w (an id prefix needs at least %d characters)", ErrNotFound, minPrefix)
	}
	patterns := []string{globPrefix(prefix)}
	if !strings.HasPrefix(prefix, sessionIDPrefix) {
		patterns = append(patterns, globPrefix(sessionIDPrefix+strings.ToLower(prefix)))
	}
	const shown = 5
	var ids []string
	for _, p := range patterns {
		rows, err := s.db.QueryContext(ctx,
			`SELECT id FROM sessions WHERE id GLOB ? ORDER BY id LIMIT ?`, p, shown+1)
		if err != nil {
			return "", err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return "", err
			}
			if !contains(ids, id) {
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", err
		}
	}
	switch {
	case len(ids) == 0:
		return "", ErrNotFound
	case len(ids) == 1:
		return ids[0], nil
	}
	more := ""
	if len(ids) > shown {
		ids, more = ids[:shown], ", ..."
	}
	return "", fmt.Errorf("%w: matches %s%s; give more characters of the id",
		ErrAmbiguous, strings.Join(ids, ", "), more)
}

// globPrefix quotes GLOB's special characters in p and appends "*". GLOB,
// unlike LIKE, is case-sensitive and so can use the primary key index.
func globPrefix(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[', ']':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('*')
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ListSessions returns sessions, most recently updated first.
func (s *Store) ListSessions(ctx context.Context, opt ListOptions) ([]Session, error) {
	q := `SELECT ` + sessionColumns + ` FROM sessions`
	var args []any
	if opt.Cwd != "" {
		q += ` WHERE cwd = ?`
		args = append(args, filepath.Clean(opt.Cwd))
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = -1
	}
	q += ` ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, limit, max(opt.Offset, 0))
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// LatestSession returns the most recently updated top-level session started
// in cwd (what --continue resumes); sub-agent sessions are skipped.
func (s *Store) LatestSession(ctx context.Context, cwd string) (Session, error) {
	sess, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE cwd = ? AND parent_id IS NULL ORDER BY updated_at DESC, id DESC LIMIT 1`,
		filepath.Clean(cwd)))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("latest session in %s: %w", cwd, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("latest session in %s: %w", cwd, err)
	}
	return sess, nil
}

// UpdateSession changes the fields set in u and bumps updated_at.
func (s *Store) UpdateSession(ctx context.Context, id string, u SessionUpdate) error {
	sets := []string{"updated_at = max(updated_at, ?)"}
	args := []any{nanos(s.nowUTC())}
	add := func(col string, v any) {
		sets = append(sets, col+" = ?")
		args = append(args, v)
	}
	if u.Title != nil {
		add("title", *u.Title)
	}
	if u.Model != nil {
		add("model", *u.Model)
	}
	if u.Runtime != nil {
		add("runtime", *u.Runtime)
	}
	if u.Mode != nil {
		add("mode", *u.Mode)
	}
	if u.LastSeq != nil {
		// Event numbers only go up: a late or stale writer must not rewind them.
		sets = append(sets, "last_seq = max(last_seq, ?)")
		args = append(args, *u.LastSeq)
	}
	args = append(args, id)
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE sessions SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...)
		if err != nil {
			return err
		}
		return mustAffect(res)
	})
	if err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	return nil
}

// DeleteSession removes a session with its messages, metadata and
// sub-agent sessions.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res)
	})
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// mustAffect turns "no row changed" into ErrNotFound.
func mustAffect(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
