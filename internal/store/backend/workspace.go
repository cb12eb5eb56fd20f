package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/store"
)

// CheckWorkspace checks a folder about to be registered: an absolute path
// of an existing directory. It returns the path cleaned.
func CheckWorkspace(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("add workspace %q: path must be absolute", path)
	}
	path = filepath.Clean(path)
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("add workspace %s: %w", path, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("add workspace %s: not a directory", path)
	}
	return path, nil
}

// WorkspaceContaining returns the workspace of all that contains path
// (the deepest one when workspaces nest). Symbolic links are resolved on
// both sides where the paths exist, so a link inside a workspace that
// points out of it does not count as inside.
func WorkspaceContaining(all []store.Workspace, path string) (store.Workspace, bool, error) {
	if !filepath.IsAbs(path) {
		return store.Workspace{}, false, fmt.Errorf("find workspace for %q: path must be absolute", path)
	}
	target := resolve(path)
	var best store.Workspace
	found := false
	for _, w := range all {
		root := resolve(w.Path)
		if within(root, target) && (!found || len(root) > len(resolve(best.Path))) {
			best, found = w, true
		}
	}
	return best, found, nil
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
