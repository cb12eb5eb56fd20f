package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// AddWorkspace registers an existing folder. Registering a path again
// returns the existing workspace.
func (s *Store) AddWorkspace(ctx context.Context, path string) (store.Workspace, error) {
	path, err := backend.CheckWorkspace(path)
	if err != nil {
		return store.Workspace{}, err
	}
	w := store.Workspace{ID: backend.NewID("wsp_"), Path: path, Name: filepath.Base(path), CreatedAt: s.nowUTC()}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, workspaceInsertSQL, w.ID, w.Path, w.Name, nanos(w.CreatedAt))
		if err != nil {
			return err
		}
		w, err = scanWorkspace(tx.QueryRowContext(ctx, workspaceByPathSQL, path))
		return err
	})
	if err != nil {
		return store.Workspace{}, fmt.Errorf("add workspace %s: %w", path, err)
	}
	return w, nil
}

func scanWorkspace(row interface{ Scan(...any) error }) (store.Workspace, error) {
	var w store.Workspace
	var created int64
	if err := row.Scan(&w.ID, &w.Path, &w.Name, &created); err != nil {
		return store.Workspace{}, err
	}
	w.CreatedAt = fromNanos(created)
	return w, nil
}

// ListWorkspaces returns the registered workspaces ordered by path.
func (s *Store) ListWorkspaces(ctx context.Context) ([]store.Workspace, error) {
	rows, err := s.db.QueryContext(ctx, workspacesListSQL)
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, workspaceDeleteSQL, id)
		if err != nil {
			return err
		}
		return mustAffect(res)
	})
	if err != nil {
		return fmt.Errorf("delete workspace %s: %w", id, err)
	}
	return nil
}

// WorkspaceForPath returns the registered workspace that contains path
// (see backend.WorkspaceContaining).
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
