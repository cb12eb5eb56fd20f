package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

const grantColumns = `id, scope, tool, pattern, action, created_at`

func scanGrant(row pgx.Row) (store.Grant, error) {
	var g store.Grant
	var created int64
	if err := row.Scan(&g.ID, &g.Scope, &g.Tool, &g.Pattern, &g.Action, &created); err != nil {
		return store.Grant{}, err
	}
	g.CreatedAt = backend.FromNanos(created)
	return g, nil
}

// AddGrant saves g. Saving a rule that already exists returns the stored
// one.
func (s *Store) AddGrant(ctx context.Context, g store.Grant) (store.Grant, error) {
	if err := backend.CheckGrant(g); err != nil {
		return store.Grant{}, err
	}
	g.Scope = backend.CleanScope(g.Scope)
	if g.ID == "" {
		g.ID = backend.NewID("grt_")
	}
	if g.CreatedAt.IsZero() {
		g.CreatedAt = s.nowUTC()
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// ON CONFLICT waits for a concurrent insert of the same rule; the
		// SELECT (a statement of its own) then sees whichever won.
		if _, err := tx.Exec(ctx, `INSERT INTO permission_grants
			(id, scope, tool, pattern, action, created_at) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (scope, tool, pattern, action) DO NOTHING`,
			g.ID, g.Scope, g.Tool, g.Pattern, g.Action, backend.Nanos(g.CreatedAt)); err != nil {
			return err
		}
		var err error
		g, err = scanGrant(tx.QueryRow(ctx, `SELECT `+grantColumns+` FROM permission_grants
			WHERE scope = $1 AND tool = $2 AND pattern = $3 AND action = $4`, g.Scope, g.Tool, g.Pattern, g.Action))
		return err
	})
	if err != nil {
		return store.Grant{}, fmt.Errorf("add grant %s %s(%s) for %s: %w", g.Action, g.Tool, g.Pattern, g.Scope, err)
	}
	return g, nil
}

// ListGrants returns the grants of one scope (all grants when scope is
// empty), oldest first.
func (s *Store) ListGrants(ctx context.Context, scope string) ([]store.Grant, error) {
	q := `SELECT ` + grantColumns + ` FROM permission_grants`
	var args []any
	if scope != "" {
		q += ` WHERE scope = $1`
		args = append(args, backend.CleanScope(scope))
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	out := []store.Grant{}
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
	if err := mustAffect(s.pool.Exec(ctx, `DELETE FROM permission_grants WHERE id = $1`, id)); err != nil {
		return fmt.Errorf("delete grant %s: %w", id, err)
	}
	return nil
}
