package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

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
		if _, err := tx.Exec(ctx, addGrantSQL,
			g.ID, g.Scope, g.Tool, g.Pattern, g.Action, backend.Nanos(g.CreatedAt)); err != nil {
			return err
		}
		var err error
		g, err = scanGrant(tx.QueryRow(ctx, addGrant2SQL, g.Scope, g.Tool, g.Pattern, g.Action))
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
	q, args := listGrantsSQL, []any{}
	if scope != "" {
		q = listGrants2SQL
		args = append(args, backend.CleanScope(scope))
	}
	rows, err := s.pool.Query(ctx, q, args...)
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
	if err := mustAffect(s.pool.Exec(ctx, deleteGrantSQL, id)); err != nil {
		return fmt.Errorf("delete grant %s: %w", id, err)
	}
	return nil
}
