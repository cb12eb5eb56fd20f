package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

func scanSession(row interface{ Scan(...any) error }) (store.Session, error) {
	var (
		s                store.Session
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
		return store.Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = fromNanos(created), fromNanos(updated)
	if costKnown {
		s.CostUSD = &cost
	}
	s.Meta = map[string]string{}
	if meta.Valid && meta.String != "" {
		if err := json.Unmarshal([]byte(meta.String), &s.Meta); err != nil {
			return store.Session{}, fmt.Errorf("decode meta: %w", err)
		}
	}
	return s, nil
}

// scanSessions reads every row of a session query.
func scanSessions(rows *sql.Rows) ([]store.Session, error) {
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

// CreateSession stores a new session (see store.Sessions).
func (s *Store) CreateSession(ctx context.Context, sess store.Session) (store.Session, error) {
	sess, err := backend.PrepareSession(sess, s.nowUTC)
	if err != nil {
		return store.Session{}, err
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
		_, err := tx.ExecContext(ctx, sessionInsertSQL,
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
		return store.Session{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return sess, nil
}

func sessionExists(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, sessionExistsSQL, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
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
	get := withSessionColumns(sessionGetSQL)
	sess, err := scanSession(s.db.QueryRowContext(ctx, get, id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	full, err := s.resolvePrefix(ctx, id)
	if err != nil {
		return store.Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	sess, err = scanSession(s.db.QueryRowContext(ctx, get, full))
	if errors.Is(err, sql.ErrNoRows) { // deleted in between
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
	for _, p := range forms {
		rows, err := s.db.QueryContext(ctx, sessionPrefixSQL, globPrefix(p), backend.PrefixShown+1)
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
	return backend.OneMatch(ids)
}

// globPrefix quotes GLOB's special characters in p and appends "*".
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
func (s *Store) ListSessions(ctx context.Context, opt store.ListOptions) ([]store.Session, error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = -1
	}
	var rows *sql.Rows
	var err error
	if opt.Cwd != "" {
		rows, err = s.db.QueryContext(ctx, withSessionColumns(sessionListCwdSQL), filepath.Clean(opt.Cwd), limit, max(opt.Offset, 0))
	} else {
		rows, err = s.db.QueryContext(ctx, withSessionColumns(sessionListSQL), limit, max(opt.Offset, 0))
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// LatestSession returns the most recently updated top-level session started
// in cwd (what --continue resumes); sub-agent sessions are skipped.
func (s *Store) LatestSession(ctx context.Context, cwd string) (store.Session, error) {
	sess, err := scanSession(s.db.QueryRowContext(ctx, withSessionColumns(sessionLatestSQL), filepath.Clean(cwd)))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("latest session in %s: %w", cwd, store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("latest session in %s: %w", cwd, err)
	}
	return sess, nil
}

// orNull is *p, or NULL when p is nil.
func orNull[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// UpdateSession changes the fields set in u and bumps updated_at.
func (s *Store) UpdateSession(ctx context.Context, id string, u store.SessionUpdate) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, sessionUpdateSQL, nanos(s.nowUTC()),
			orNull(u.Title), orNull(u.Model), orNull(u.Runtime), orNull(u.Mode), orNull(u.LastSeq), id)
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
		res, err := tx.ExecContext(ctx, sessionDeleteSQL, id)
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
		return store.ErrNotFound
	}
	return nil
}
