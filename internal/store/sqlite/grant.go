package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// AddGrant saves g. Saving a rule that already exists returns the stored one.
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, grantInsertSQL, g.ID, g.Scope, g.Tool, g.Pattern, g.Action, nanos(g.CreatedAt))
		if err != nil {
			return err
		}
		g, err = scanGrant(tx.QueryRowContext(ctx, grantGetSQL, g.Scope, g.Tool, g.Pattern, g.Action))
		return err
	})
	if err != nil {
		return store.Grant{}, fmt.Errorf("add grant %s %s(%s) for %s: %w", g.Action, g.Tool, g.Pattern, g.Scope, err)
	}
	return g, nil
}

func scanGrant(row interface{ Scan(...any) error }) (store.Grant, error) {
	var g store.Grant
	var created int64
	if err := row.Scan(&g.ID, &g.Scope, &g.Tool, &g.Pattern, &g.Action, &created); err != nil {
		return store.Grant{}, err
	}
	g.CreatedAt = fromNanos(created)
	return g, nil
}

// ListGrants returns the grants of one scope (all grants when scope is
// empty), oldest first.
func (s *Store) ListGrants(ctx context.Context, scope string) ([]store.Grant, error) {
	var rows *sql.Rows
	var err error
	if scope != "" {
		rows, err = s.db.QueryContext(ctx, grantsListScopeSQL, backend.CleanScope(scope))
	} else {
		rows, err = s.db.QueryContext(ctx, grantsListSQL)
	}
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, grantDeleteSQL, id)
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
