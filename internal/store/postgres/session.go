package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// withSessionColumns fills /*session_columns*/ in q.
func withSessionColumns(q string) string {
	return strings.Replace(q, "/*session_columns*/", strings.TrimSpace(sessionColumnsSQL), 1)
}

func scanSession(row pgx.Row) (store.Session, error) {
	var (
		s                store.Session
		created, updated int64
		cost             float64
		costKnown        bool
		meta             *string
	)
	err := row.Scan(&s.ID, &s.Cwd, &s.Title, &s.Model, &s.Runtime, &s.Mode, &s.ParentID, &s.ParentToolUseID,
		&created, &updated, &s.Usage.InputTokens, &s.Usage.OutputTokens, &s.Usage.CacheReadTokens,
		&s.Usage.CacheCreationTokens, &s.Usage.ReasoningTokens, &cost, &costKnown,
		&s.MessageCount, &s.LastSeq, &meta)
	if err != nil {
		return store.Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = backend.FromNanos(created), backend.FromNanos(updated)
	if costKnown {
		s.CostUSD = &cost
	}
	s.Meta = map[string]string{}
	if meta != nil && *meta != "" {
		if err := json.Unmarshal([]byte(*meta), &s.Meta); err != nil {
			return store.Session{}, fmt.Errorf("decode meta: %w", err)
		}
	}
	return s, nil
}

func collectSessions(rows pgx.Rows) ([]store.Session, error) {
	defer rows.Close()
	out := []store.Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

// CreateSession stores a new session (see store.PrepareSession for what
// is filled in).
func (s *Store) CreateSession(ctx context.Context, sess store.Session) (store.Session, error) {
	sess, err := backend.PrepareSession(sess, s.nowUTC)
	if err != nil {
		return store.Session{}, err
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if sess.ParentID != "" {
			if err := sessionExists(ctx, tx, sess.ParentID); err != nil {
				return fmt.Errorf("parent session: %w", err)
			}
		}
		_, err := tx.Exec(ctx, createSessionSQL,
			sess.ID, sess.Cwd, sess.Title, sess.Model, sess.Runtime, sess.Mode, nullable(sess.ParentID), nullable(sess.ParentToolUseID),
			backend.Nanos(sess.CreatedAt), backend.Nanos(sess.UpdatedAt), sess.LastSeq)
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
		return store.Session{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return sess, nil
}

// nullable is NULL for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func sessionExists(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id string) error {
	var one int
	err := q.QueryRow(ctx, sessionExistsSQL, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("session %s: %w", id, store.ErrNotFound)
	}
	return err
}

// GetSession loads a session by id, or by a unique prefix of at least six
// characters (the "ses_" start may be left out), as git resolves commits.
func (s *Store) GetSession(ctx context.Context, id string) (store.Session, error) {
	if id == "" {
		return store.Session{}, fmt.Errorf("load session: no id given: %w", store.ErrNotFound)
	}
	if err := store.CheckID("session", id); err != nil {
		return store.Session{}, fmt.Errorf("load session: %w", err)
	}
	sess, err := scanSession(s.pool.QueryRow(ctx, withSessionColumns(getSessionSQL), id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	full, err := s.resolvePrefix(ctx, id)
	if err != nil {
		return store.Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	sess, err = scanSession(s.pool.QueryRow(ctx, withSessionColumns(getSession2SQL), full))
	if errors.Is(err, pgx.ErrNoRows) { // deleted in between
		return store.Session{}, fmt.Errorf("load session %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return sess, nil
}

// resolvePrefix finds the one session whose id starts with prefix (or with
// "ses_"+prefix).
func (s *Store) resolvePrefix(ctx context.Context, prefix string) (string, error) {
	forms, err := backend.PrefixForms(prefix)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, f := range forms {
		rows, err := s.pool.Query(ctx, resolvePrefixSQL, likePrefix(f), backend.PrefixShown+1)
		if err != nil {
			return "", err
		}
		found, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return "", err
		}
		for _, id := range found {
			if !contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return backend.OneMatch(ids)
}

// likePrefix escapes LIKE's special characters in p ('_' is in every id)
// and appends "%". The id column's "C" collation makes LIKE case-sensitive
// and lets it use the primary key's index.
func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
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
func (s *Store) ListSessions(ctx context.Context, opt store.ListOptions) ([]store.Session, error) {
	var limit *int // NULL: no limit
	if opt.Limit > 0 {
		limit = &opt.Limit
	}
	q := withSessionColumns(listSessionsSQL)
	args := []any{limit, max(opt.Offset, 0)}
	if opt.Cwd != "" {
		q = withSessionColumns(listSessions2SQL)
		args = append(args, filepath.Clean(opt.Cwd))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out, err := collectSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// LatestSession returns the most recently updated top-level session started
// in cwd (what --continue resumes); sub-agent sessions are skipped.
func (s *Store) LatestSession(ctx context.Context, cwd string) (store.Session, error) {
	sess, err := scanSession(s.pool.QueryRow(ctx, withSessionColumns(latestSessionSQL),
		filepath.Clean(cwd)))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, fmt.Errorf("latest session in %s: %w", cwd, store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("latest session in %s: %w", cwd, err)
	}
	return sess, nil
}

// UpdateSession changes the fields set in u and bumps updated_at.
func (s *Store) UpdateSession(ctx context.Context, id string, u store.SessionUpdate) error {
	// A NULL argument keeps the column; event numbers only go up: a late
	// or stale writer must not rewind them.
	err := mustAffect(s.pool.Exec(ctx, updateSessionSQL, backend.Nanos(s.nowUTC()), u.Title, u.Model, u.Runtime, u.Mode, u.LastSeq, id))
	if err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	return nil
}

// DeleteSession removes a session with its messages, metadata, checkpoints
// and sub-agent sessions.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	if err := mustAffect(s.pool.Exec(ctx, deleteSessionSQL, id)); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// Children returns the sub-agent sessions started under parentID, oldest
// first (the order they were started in).
func (s *Store) Children(ctx context.Context, parentID string) ([]store.Session, error) {
	rows, err := s.pool.Query(ctx, withSessionColumns(childrenSQL), parentID)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	out, err := collectSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	if len(out) == 0 {
		out = nil // as the SQLite backend: nil when there are none
	}
	return out, nil
}
