package postgres

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

func scanWorkspace(row pgx.Row) (store.Workspace, error) {
	var w store.Workspace
	var created int64
	if err := row.Scan(&w.ID, &w.Path, &w.Name, &created); err != nil {
		return store.Workspace{}, err
	}
	w.CreatedAt = backend.FromNanos(created)
	return w, nil
}

// AddWorkspace registers an existing folder. Registering a path again
// returns the existing workspace.
func (s *Store) AddWorkspace(ctx context.Context, path string) (store.Workspace, error) {
	path, err := backend.CheckWorkspace(path)
	if err != nil {
		return store.Workspace{}, err
	}
	w := store.Workspace{ID: backend.NewID("wsp_"), Path: path, Name: filepath.Base(path), CreatedAt: s.nowUTC()}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, addWorkspaceSQL, w.ID, w.Path, w.Name, backend.Nanos(w.CreatedAt)); err != nil {
			return err
		}
		w, err = scanWorkspace(tx.QueryRow(ctx, addWorkspace2SQL, w.Path))
		return err
	})
	if err != nil {
		return store.Workspace{}, fmt.Errorf("add workspace %s: %w", path, err)
	}
	return w, nil
}

// ListWorkspaces returns the registered workspaces ordered by path.
func (s *Store) ListWorkspaces(ctx context.Context) ([]store.Workspace, error) {
	rows, err := s.pool.Query(ctx, listWorkspacesSQL)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	defer rows.Close()
	out := []store.Workspace{}
	for rows.Next() {
		w, err := scanWorkspace(rows)
		if err != nil {
			return nil, fmt.Errorf("list workspaces: %w", err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	return out, nil
}

// DeleteWorkspace unregisters a workspace (its files are untouched).
func (s *Store) DeleteWorkspace(ctx context.Context, id string) error {
	if err := mustAffect(s.pool.Exec(ctx, deleteWorkspaceSQL, id)); err != nil {
		return fmt.Errorf("delete workspace %s: %w", id, err)
	}
	return nil
}

// WorkspaceForPath returns the registered workspace that contains path
// (the deepest one when workspaces nest; see backend.WorkspaceContaining).
func (s *Store) WorkspaceForPath(ctx context.Context, path string) (store.Workspace, bool, error) {
	if !filepath.IsAbs(path) {
		return store.Workspace{}, false, fmt.Errorf("find workspace for %q: path must be absolute", path)
	}
	all, err := s.ListWorkspaces(ctx)
	if err != nil {
		return store.Workspace{}, false, err
	}
	return backend.WorkspaceContaining(all, path)
}
