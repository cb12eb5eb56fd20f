package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Workspace is a folder users allow agents to run in (tandem serve).
type Workspace struct {
	ID        string
	Path      string // absolute and clean
	Name      string // the folder's base name
	CreatedAt time.Time
}

// AddWorkspace registers an existing folder. Registering a path again
// returns the existing workspace.
func (s *Store) AddWorkspace(ctx context.Context, path string) (Workspace, error) {
	w, err := NewWorkspace(path, s.nowUTC())
	if err != nil {
		return Workspace{}, err
	}
	path = w.Path
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO workspaces (id, path, name, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (path) DO NOTHING`, w.ID, w.Path, w.Name, nanos(w.CreatedAt))
		if err != nil {
			return err
		}
		w, err = scanWorkspace(tx.QueryRowContext(ctx,
			`SELECT id, path, name, created_at FROM workspaces WHERE path = ?`, path))
		return err
	})
	if err != nil {
		return Workspace{}, fmt.Errorf("add workspace %s: %w", path, err)
	}
	return w, nil
}

// NewWorkspace checks that path is an existing folder given absolute and
// returns the workspace to store for it (a new id; the stored one wins if
// the path is registered already).
func NewWorkspace(path string, now time.Time) (Workspace, error) {
	if !filepath.IsAbs(path) {
		return Workspace{}, fmt.Errorf("add workspace %q: path must be absolute", path)
	}
	path = filepath.Clean(path)
	info, err := os.Stat(path)
	if err != nil {
		return Workspace{}, fmt.Errorf("add workspace %s: %w", path, err)
	}
	if !info.IsDir() {
		return Workspace{}, fmt.Errorf("add workspace %s: not a directory", path)
	}
	return Workspace{ID: newID("wsp_"), Path: path, Name: filepath.Base(path), CreatedAt: now}, nil
}

func scanWorkspace(row interface{ Scan(...any) error }) (Workspace, error) {
	var w Workspace
	var created int64
	if err := row.Scan(&w.ID, &w.Path, &w.Name, &created); err != nil {
		return Workspace{}, err
	}
	w.CreatedAt = fromNanos(created)
	return w, nil
}

// ListWorkspaces returns the registered workspaces ordered by path.
func (s *Store) ListWorkspaces(ctx context.Context) ([]Workspace, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, path, name, created_at FROM workspaces ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	defer rows.Close()
	out := []Workspace{}
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
		res, err := tx.ExecContext(ctx, `DELETE FROM workspaces WHERE id = ?`, id)
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

// WorkspaceForPath returns the registered workspace that contains path (the
// deepest one when workspaces nest). Symbolic links are resolved on both
// sides where the paths exist, so a link inside a workspace that points out
// of it does not count as inside.
func (s *Store) WorkspaceForPath(ctx context.Context, path string) (Workspace, bool, error) {
	if !filepath.IsAbs(path) {
		return Workspace{}, false, fmt.Errorf("find workspace for %q: path must be absolute", path)
	}
	all, err := s.ListWorkspaces(ctx)
	if err != nil {
		return Workspace{}, false, err
	}
	best, found := DeepestWorkspace(all, path)
	return best, found, nil
}

// DeepestWorkspace is the workspace of all that contains path (absolute),
// the deepest one when workspaces nest, links resolved on both sides.
func DeepestWorkspace(all []Workspace, path string) (Workspace, bool) {
	target := resolve(path)
	var best Workspace
	found := false
	for _, w := range all {
		root := resolve(w.Path)
		if within(root, target) && (!found || len(root) > len(resolve(best.Path))) {
			best, found = w, true
		}
	}
	return best, found
}

// resolve cleans p and follows symbolic links when p exists.
func resolve(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	} else if !errors.Is(err, os.ErrNotExist) {
		return p
	}
	// A path that does not exist yet (a file about to be created): resolve
	// its nearest existing ancestor.
	dir, rest := filepath.Dir(p), filepath.Base(p)
	if dir == p {
		return p
	}
	return filepath.Join(resolve(dir), rest)
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
