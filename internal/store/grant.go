package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// UserScope is the Grant scope that applies in every project.
const UserScope = "user"

// Grant is a saved "allow always" (or "deny always") rule.
type Grant struct {
	ID        string
	Scope     string // a project path, or UserScope
	Tool      string
	Pattern   string // tool-specific, e.g. "git status:*"; empty: any call
	Action    string // e.g. "allow", "deny"
	CreatedAt time.Time
}

// AddGrant saves g. Saving a rule that already exists returns the stored one.
func (s *Store) AddGrant(ctx context.Context, g Grant) (Grant, error) {
	g, err := PrepareGrant(g, s.nowUTC())
	if err != nil {
		return Grant{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO permission_grants
			(id, scope, tool, pattern, action, created_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (scope, tool, pattern, action) DO NOTHING`,
			g.ID, g.Scope, g.Tool, g.Pattern, g.Action, nanos(g.CreatedAt))
		if err != nil {
			return err
		}
		g, err = scanGrant(tx.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM permission_grants
			WHERE scope = ? AND tool = ? AND pattern = ? AND action = ?`, g.Scope, g.Tool, g.Pattern, g.Action))
		return err
	})
	if err != nil {
		return Grant{}, fmt.Errorf("add grant %s %s(%s) for %s: %w", g.Action, g.Tool, g.Pattern, g.Scope, err)
	}
	return g, nil
}

// PrepareGrant checks g and fills in what AddGrant stores: the cleaned
// scope, a new id and the time when unset.
func PrepareGrant(g Grant, now time.Time) (Grant, error) {
	switch {
	case g.Scope == "":
		return Grant{}, errors.New(`add grant: empty scope (use a project path or "user")`)
	case g.Tool == "":
		return Grant{}, errors.New("add grant: empty tool name")
	case g.Action == "":
		return Grant{}, errors.New("add grant: empty action")
	}
	g.Scope = cleanScope(g.Scope)
	if g.ID == "" {
		g.ID = newID("grt_")
	}
	if g.CreatedAt.IsZero() {
		g.CreatedAt = now
	}
	return g, nil
}

const grantColumns = `id, scope, tool, pattern, action, created_at`

func scanGrant(row interface{ Scan(...any) error }) (Grant, error) {
	var g Grant
	var created int64
	if err := row.Scan(&g.ID, &g.Scope, &g.Tool, &g.Pattern, &g.Action, &created); err != nil {
		return Grant{}, err
	}
	g.CreatedAt = fromNanos(created)
	return g, nil
}

// ListGrants returns the grants of one scope (all grants when scope is
// empty), oldest first.
func (s *Store) ListGrants(ctx context.Context, scope string) ([]Grant, error) {
	q := `SELECT ` + grantColumns + ` FROM permission_grants`
	var args []any
	if scope != "" {
		q += ` WHERE scope = ?`
		args = append(args, cleanScope(scope))
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	out := []Grant{}
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("list grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return out, nil
}

// DeleteGrant removes a grant.
func (s *Store) DeleteGrant(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM permission_grants WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res)
	})
	if err != nil {
		return fmt.Errorf("delete grant %s: %w", id, err)
	}
	return nil
}

// cleanScope cleans a project path so "/a/b/" and "/a/b" are one scope.
func cleanScope(scope string) string {
	if filepath.IsAbs(scope) {
		return filepath.Clean(scope)
	}
	return scope
}
